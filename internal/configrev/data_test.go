package configrev

import (
	"encoding/json"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

func TestTheHashFollowsEveryByteOfTheData(t *testing.T) {
	base := Data{Kind: ConfigMap, Text: map[string]string{"a": "bc", "d": "e"}}
	same := Data{Kind: ConfigMap, Text: map[string]string{"d": "e", "a": "bc"}}
	if base.Hash() != same.Hash() {
		t.Errorf("equal data hash apart: %s, %s", base.Hash(), same.Hash())
	}
	others := map[string]Data{
		"a value changed":              {Kind: ConfigMap, Text: map[string]string{"a": "bx", "d": "e"}},
		"a key and value swap a byte":  {Kind: ConfigMap, Text: map[string]string{"ab": "c", "d": "e"}},
		"a key removed":                {Kind: ConfigMap, Text: map[string]string{"a": "bc"}},
		"the same bytes as binaryData": {Kind: ConfigMap, Text: map[string]string{"d": "e"}, Binary: map[string][]byte{"a": []byte("bc")}},
		"the same data in a Secret":    {Kind: Secret, Text: map[string]string{"a": "bc", "d": "e"}},
	}
	for name, d := range others {
		if d.Hash() == base.Hash() {
			t.Errorf("%s: same hash %s", name, d.Hash())
		}
	}
}

func TestACopyNameIsAValidNameForAnySource(t *testing.T) {
	for _, source := range []string{"app", strings.Repeat("a", 253)} {
		name := CopyName(source, Data{Kind: ConfigMap}.Hash())
		if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
			t.Errorf("copy of %d-byte name: %q: %v", len(source), name, errs)
		}
	}
}

func TestACopyIsImmutableLabelledAndKeepsTheData(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "app", Namespace: "ns", Labels: map[string]string{"team": "x"}},
		Data: map[string]string{"k": "v"}, BinaryData: map[string][]byte{"b": {0, 1}}}
	cp, err := ConfigMapCopy(cm, "web")
	if err != nil {
		t.Fatal(err)
	}
	if cp.Immutable == nil || !*cp.Immutable || cp.Name != CopyName("app", OfConfigMap(cm).Hash()) || cp.Namespace != "ns" {
		t.Errorf("copy %s/%s immutable %v", cp.Namespace, cp.Name, cp.Immutable)
	}
	if cp.Data["k"] != "v" || string(cp.BinaryData["b"]) != "\x00\x01" {
		t.Errorf("copy data %v %v", cp.Data, cp.BinaryData)
	}
	if !IsCopyFor(cp.Labels, "web") || IsCopyFor(cp.Labels, "other") || IsCopyFor(cm.Labels, "web") {
		t.Errorf("IsCopyFor is wrong for labels %v", cp.Labels)
	}
}

func TestASecretsCopyShowsItsKeysAndNoValue(t *testing.T) {
	const value = "s3cr3t-value"
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "ns"}, Type: corev1.SecretTypeOpaque,
		Data: map[string][]byte{"password": []byte(value)}, StringData: map[string]string{"user": value}}
	cp, err := SecretCopy(s, "web")
	if err != nil {
		t.Fatal(err)
	}
	meta, err := json.Marshal(cp.ObjectMeta)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(meta), value) {
		t.Errorf("the copy's metadata holds the value: %s", meta)
	}
	var keys map[string]string
	if err := json.Unmarshal([]byte(cp.Annotations[v1alpha1.ConfigKeysAnnotation]), &keys); err != nil || len(keys) != 2 || keys["user"] != keys["password"] {
		t.Errorf("key hashes %v (%v): want user and password, equal values hashing alike", keys, err)
	}
	if string(cp.Data["user"]) != value || cp.Type != corev1.SecretTypeOpaque {
		t.Errorf("copy data %v type %s: stringData must be folded in", cp.Data, cp.Type)
	}
}
