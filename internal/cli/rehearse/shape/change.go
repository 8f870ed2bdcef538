package shape

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/setops"
)

// BehaviorAnnotation makes a simulated pod misbehave (docs/local-plane.md:
// internal/plane/nodes.AnnotationBehavior).
const BehaviorAnnotation = "sim.ordinal.dev/behavior"

// Failures are the behaviours --new-revision-fails may give the new
// revision's pods.
var Failures = []string{"never-ready", "crash-loop", "fail", "image-pull-error"}

// Change is the proposed change as the command line gives it, applied in
// this order.
type Change struct {
	// ManifestName and Manifest are a file holding the set as it should
	// become (-f): its spec replaces the set's. The file may hold other
	// objects; the set is the StatefulSet of either kind with the set's
	// name, or the only one.
	ManifestName string
	Manifest     []byte
	// Images are [CONTAINER=]IMAGE: the container's image (the only
	// container's, without a name).
	Images []string
	// Sets are PATH=VALUE: a field of the set, by its JSON path.
	Sets []string
	// Fails makes the new revision's pods play this behaviour (Failures).
	Fails string
}

// Empty says whether the change changes nothing.
func (c Change) Empty() bool {
	return len(c.Manifest) == 0 && len(c.Images) == 0 && len(c.Sets) == 0 && c.Fails == ""
}

// Proposal is the set before and after the change, of the source's kind.
type Proposal struct {
	Before, After Set
	// Words say what changed, a line per change.
	Words []string
	// Notes say what a manifest of the other kind lost in conversion.
	Notes []string
}

// Propose applies the change to before. Every bad input is an error that
// names it; nothing is applied half.
func Propose(before Set, ch Change) (Proposal, error) {
	p := Proposal{Before: before, After: before.DeepCopy()}
	if len(ch.Manifest) > 0 {
		if err := p.manifest(ch.ManifestName, ch.Manifest); err != nil {
			return Proposal{}, err
		}
	}
	for _, img := range ch.Images {
		if err := p.After.setImage(img); err != nil {
			return Proposal{}, fmt.Errorf("--image %s: %w", img, err)
		}
		p.Words = append(p.Words, "image "+img)
	}
	for _, s := range ch.Sets {
		next, err := setField(p.After, s)
		if err != nil {
			return Proposal{}, fmt.Errorf("--set %s: %w", s, err)
		}
		p.After = next
		p.Words = append(p.Words, "set "+s)
	}
	if ch.Fails != "" {
		if !slices.Contains(Failures, ch.Fails) {
			return Proposal{}, fmt.Errorf("--new-revision-fails %q: want one of %s", ch.Fails, strings.Join(Failures, ", "))
		}
		t := p.After.template()
		if t.Annotations == nil {
			t.Annotations = map[string]string{}
		}
		t.Annotations[BehaviorAnnotation] = ch.Fails
	}
	return p, nil
}

// template is the set's pod template, to change in place.
func (s Set) template() *corev1.PodTemplateSpec {
	if s.Extended != nil {
		return &s.Extended.Spec.Template
	}
	return &s.Apps.Spec.Template
}

// setImage sets one container's image: the named one (or init
// container), or the only container.
func (s Set) setImage(arg string) error {
	name, image, named := strings.Cut(arg, "=")
	if !named {
		name, image = "", arg
	}
	if image == "" {
		return errors.New("no image: want [CONTAINER=]IMAGE")
	}
	spec := &s.template().Spec
	var names []string
	for _, list := range [][]corev1.Container{spec.Containers, spec.InitContainers} {
		for i := range list {
			names = append(names, list[i].Name)
			if list[i].Name == name {
				list[i].Image = image
				return nil
			}
		}
	}
	if !named && len(spec.Containers) == 1 {
		spec.Containers[0].Image = image
		return nil
	}
	if !named {
		return fmt.Errorf("the template has %d containers (%s): name one, CONTAINER=IMAGE", len(spec.Containers), strings.Join(names, ", "))
	}
	return fmt.Errorf("the template has no container %q (it has %s)", name, strings.Join(names, ", "))
}

// manifest replaces the set's spec with the manifest's set's.
func (p *Proposal) manifest(name string, data []byte) error {
	found, err := setInManifest(data, p.Before.Name())
	if err != nil {
		return fmt.Errorf("-f %s: %w", name, err)
	}
	if found.Kind() != p.Before.Kind() {
		var notes []string
		if found, notes, err = found.As(p.Before.Kind(), Extras{}); err != nil {
			return fmt.Errorf("-f %s: %w", name, err)
		}
		p.Notes = append(p.Notes, notes...)
	}
	if p.After.Extended != nil {
		p.After.Extended.Spec = found.Extended.Spec
	} else {
		p.After.Apps.Spec = found.Apps.Spec
	}
	p.Words = append(p.Words, "the spec of "+name)
	return nil
}

// setInManifest is the StatefulSet of either kind in data named name, or
// its only one.
func setInManifest(data []byte, name string) (Set, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var sets []Set
	for {
		var u unstructured.Unstructured
		if err := dec.Decode(&u.Object); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return Set{}, fmt.Errorf("reading the manifest: %w", err)
		}
		if u.GetKind() != "StatefulSet" {
			continue
		}
		s, err := typedSet(&u)
		if err != nil {
			return Set{}, err
		}
		sets = append(sets, s)
	}
	switch {
	case len(sets) == 0:
		return Set{}, errors.New("no StatefulSet (apps/v1 or apps.ordinal.dev/v1alpha1) in the manifest")
	case len(sets) == 1:
		return sets[0], nil
	}
	for _, s := range sets {
		if s.Name() == name {
			return s, nil
		}
	}
	return Set{}, fmt.Errorf("%d StatefulSets in the manifest and none named %s", len(sets), name)
}

// typedSet reads an object of the manifest as a set of its kind,
// refusing fields the kind does not have.
func typedSet(u *unstructured.Unstructured) (Set, error) {
	raw, err := u.MarshalJSON()
	if err != nil {
		return Set{}, fmt.Errorf("reading StatefulSet %s: %w", u.GetName(), err)
	}
	switch u.GetAPIVersion() {
	case "apps/v1":
		var s appsv1.StatefulSet
		if err := yaml.UnmarshalStrict(raw, &s); err != nil {
			return Set{}, fmt.Errorf("reading StatefulSet %s: %w", u.GetName(), err)
		}
		return Set{Apps: &s}, nil
	case v1alpha1.SchemeGroupVersion.String():
		var s v1alpha1.StatefulSet
		if err := yaml.UnmarshalStrict(raw, &s); err != nil {
			return Set{}, fmt.Errorf("reading StatefulSet %s: %w", u.GetName(), err)
		}
		return Set{Extended: &s}, nil
	}
	return Set{}, fmt.Errorf("StatefulSet %s is %s: want apps/v1 or %s (%s)", u.GetName(), u.GetAPIVersion(),
		v1alpha1.SchemeGroupVersion, setops.ExtendedKind.Resource())
}
