package defaults

import (
	"fmt"
	"math/rand"
	"reflect"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/randfill"
)

// randomSets fills random StatefulSets the API server could meet: at most
// two elements per list or map, quantities that parse, images drawn from
// the reference grammar (valid and subtly invalid), volumes with at most
// one source, and half of all strings and integers blanked, since an empty
// value is what most defaults look for.
type randomSets struct {
	filler *randfill.Filler
	rand   *rand.Rand
}

// newRandomSets returns a deterministic source of random sets.
func newRandomSets(seed int64) *randomSets {
	filler := randfill.NewWithSeed(seed).NilChance(0.3).NumElements(0, 2).Funcs(
		fillQuantity, fillFields, fillContainer, fillEphemeralContainer, fillVolumeSource,
		func(s *appsv1.StatefulSetUpdateStrategyType, c randfill.Continue) {
			*s = []appsv1.StatefulSetUpdateStrategyType{
				appsv1.RollingUpdateStatefulSetStrategyType, appsv1.OnDeleteStatefulSetStrategyType, "Other"}[c.Intn(3)]
		},
	)
	return &randomSets{filler: filler, rand: rand.New(rand.NewSource(seed))}
}

// next returns a new random set.
func (s *randomSets) next() *appsv1.StatefulSet {
	set := &appsv1.StatefulSet{}
	s.filler.Fill(set)
	blank(reflect.ValueOf(set).Elem(), s.rand)
	return set
}

// generated names the string fields whose values are generated on purpose
// (image references) and so are not blanked.
var generated = map[string]bool{"Image": true, "Reference": true}

// blank walks v and empties each string and zeroes each integer it can set
// with even odds. Map entries are left alone: they are not addressable, and
// no default looks into a map.
func blank(v reflect.Value, r *rand.Rand) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			blank(v.Elem(), r)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			field := v.Field(i)
			if field.CanSet() && (field.Kind() != reflect.String || !generated[v.Type().Field(i).Name]) {
				blank(field, r)
			}
		}
	case reflect.Slice:
		for i := range v.Len() {
			blank(v.Index(i), r)
		}
	case reflect.String, reflect.Int32, reflect.Int64:
		if r.Intn(2) == 0 {
			v.SetZero()
		}
	}
}

// fillFields fills managed fields with a valid (and irrelevant) field set,
// which random bytes would not be.
func fillFields(f *metav1.FieldsV1, c randfill.Continue) {
	f.SetRawBytes([]byte(`{"f:spec":{}}`))
}

// defaultedSources are the volume sources that have defaults of their own;
// a filled volume keeps one of them more often than any other source.
var defaultedSources = []string{"HostPath", "Secret", "ConfigMap", "DownwardAPI", "Projected", "ISCSI",
	"RBD", "AzureDisk", "ScaleIO", "Ephemeral", "Image"}

// fillVolumeSource fills a volume with at most one source, as a valid
// volume has: none an eighth of the time, any source another eighth, else
// one with defaults of its own. An image source gets a generated reference.
func fillVolumeSource(src *corev1.VolumeSource, c randfill.Continue) {
	c.FillNoCustom(src)
	v := reflect.ValueOf(src).Elem()
	keep := ""
	switch c.Intn(8) {
	case 0:
	case 1:
		keep = v.Type().Field(c.Intn(v.NumField())).Name
	default:
		keep = defaultedSources[c.Intn(len(defaultedSources))]
	}
	for i := range v.NumField() {
		if v.Type().Field(i).Name != keep {
			v.Field(i).SetZero()
		}
	}
	if src.Image != nil {
		src.Image.Reference = randomImage(c)
	}
}

// fillContainer fills a container with a generated image reference.
func fillContainer(ctr *corev1.Container, c randfill.Continue) {
	c.FillNoCustom(ctr)
	ctr.Image = randomImage(c)
}

// fillEphemeralContainer fills an ephemeral container like a container.
func fillEphemeralContainer(ctr *corev1.EphemeralContainerCommon, c randfill.Continue) {
	c.FillNoCustom(ctr)
	ctr.Image = randomImage(c)
}

// typicalImages are references as manifests write them, one of each kind
// the pull policy default tells apart.
var typicalImages = []string{"nginx", "nginx:latest", "nginx:1.25", "registry.k8s.io/pause:3.10",
	"busybox@sha256:" + hex(64), "nginx:latest@sha256:" + hex(64), "localhost:5000/team/app",
	"quay.io/org/app:latest", "", "Nginx"}

// Parts of assembled image references, each with its likely mistakes.
var (
	imageHosts = []string{"", "", "docker.io/", "index.docker.io/", "localhost/", "localhost:5000/",
		"registry.k8s.io/", "Registry.Example/", "[::1]:5000/", "my_host.io/", "-bad.io/", "10.0.0.1:80/",
		"Team/", "localhost:http/", "registry.io:/", "[::1]/", "[]:80/", "[::g]/", "[::1]x/", "host:80:90/", "a..b/"}
	imagePaths = []string{"nginx", "nginx", "library/nginx", "team/app/web", "a__b", "a--b", "a_b.c",
		"a___b", "Nginx", "", "x/", "/x", "nginx ", strings.Repeat("n", 247), strings.Repeat("n", 248)}
	imageTags = []string{"", "", "", "", ":latest", ":latest", ":latest", ":1.25", ":LATEST", ":latest-1",
		":", ":-x", ":" + strings.Repeat("t", 128), ":" + strings.Repeat("t", 129)}
	imageDigests = []string{"", "", "", "", "", "", "@sha256:" + hex(64), "@sha256:" + hex(63), "@sha256:" + hex(65),
		"@sha256:" + strings.ToUpper(hex(64)), "@sha384:" + hex(96), "@sha512:" + hex(128), "@md5:" + hex(32),
		"@sha256:" + hex(31), "@SHA256:" + hex(64)}
)

// randomImage returns a typical reference, one assembled from the parts
// above, a bare image ID or a random string.
func randomImage(c randfill.Continue) string {
	one := func(parts []string) string { return parts[c.Intn(len(parts))] }
	switch n := c.Intn(20); {
	case n == 0:
		return hex(64)
	case n == 1:
		return c.String(20)
	case n < 10:
		return one(typicalImages)
	}
	return one(imageHosts) + one(imagePaths) + one(imageTags) + one(imageDigests)
}

// hex returns n lowercase hex digits.
func hex(n int) string {
	return strings.Repeat("0123456789abcdef", n/16+1)[:n]
}

// quantitySuffixes are the suffixes quantities are written with, including
// ones whose values need rounding to milli-units.
var quantitySuffixes = []string{"", "m", "u", "n", "k", "M", "G", "Ki", "Mi", "Gi", "e3", "e-7", "E-2"}

// fillQuantity fills a quantity that parses, in integer, decimal and
// exponent forms, some built from an integer and scale (no cached text).
func fillQuantity(q *resource.Quantity, c randfill.Continue) {
	if c.Intn(3) == 0 {
		*q = *resource.NewScaledQuantity(c.Int63n(1e6)-1000, resource.Scale(c.Intn(16)-9))
		return
	}
	text := fmt.Sprint(c.Int63n(1e4))
	if c.Bool() {
		text += "." + fmt.Sprint(c.Int63n(1e9))
	}
	if c.Intn(4) == 0 {
		text = "-" + text
	}
	parsed, err := resource.ParseQuantity(text + quantitySuffixes[c.Intn(len(quantitySuffixes))])
	if err != nil {
		parsed = resource.MustParse(text)
	}
	*q = parsed
}
