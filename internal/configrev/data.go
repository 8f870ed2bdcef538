package configrev

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// hashLen is the length of the hash in a copy's name: 40 bits of
// SHA-256 in hex. Two data of one object meeting on one name would make
// the second copy's create fail (it is checked, never overwritten).
const hashLen = 10

// maxName is the longest object name.
const maxName = 253

// Data is what a copy carries of an object: a ConfigMap's data and
// binaryData, or a Secret's data and type.
type Data struct {
	Kind   Kind
	Type   string
	Text   map[string]string
	Binary map[string][]byte
}

// OfConfigMap is the data of cm.
func OfConfigMap(cm *corev1.ConfigMap) Data {
	return Data{Kind: ConfigMap, Text: cm.Data, Binary: cm.BinaryData}
}

// OfSecret is the data of s; stringData is folded in as the API server
// folds it, so that a Secret read back hashes alike.
func OfSecret(s *corev1.Secret) Data {
	bin := make(map[string][]byte, len(s.Data)+len(s.StringData))
	for k, v := range s.Data {
		bin[k] = v
	}
	for k, v := range s.StringData {
		bin[k] = []byte(v)
	}
	return Data{Kind: Secret, Type: string(s.Type), Binary: bin}
}

// Hash is the hash a copy of d is named with: every key and value, in
// key order, with their lengths, so that no two different data share an
// encoding.
func (d Data) Hash() string {
	h := sha256.New()
	writeField(h, string(d.Kind))
	writeField(h, d.Type)
	for _, k := range sortedKeys(d.Text) {
		writeField(h, "t:"+k)
		writeField(h, d.Text[k])
	}
	for _, k := range sortedKeys(d.Binary) {
		writeField(h, "b:"+k)
		writeField(h, string(d.Binary[k]))
	}
	return hex.EncodeToString(h.Sum(nil))[:hashLen]
}

func writeField(w io.Writer, s string) {
	_, _ = io.WriteString(w, strconv.Itoa(len(s))+":"+s)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// KeyHashes is each key's hash, which history compares between two
// revisions: for a Secret the only trace of its values outside the
// Secret and its copies, and kept only on the copy (a Secret itself).
func (d Data) KeyHashes() map[string]string {
	out := make(map[string]string, len(d.Text)+len(d.Binary))
	for k, v := range d.Text {
		out[k] = valueHash(v)
	}
	for k, v := range d.Binary {
		out[k] = valueHash(string(v))
	}
	return out
}

func valueHash(v string) string {
	sum := sha256.Sum256([]byte(v))
	return hex.EncodeToString(sum[:8])
}

// Size is the bytes of keys and values d holds.
func (d Data) Size() int {
	n := 0
	for k, v := range d.Text {
		n += len(k) + len(v)
	}
	for k, v := range d.Binary {
		n += len(k) + len(v)
	}
	return n
}

// CopyName is the name of the copy of source with data hash: the source's
// name, cut to fit, a dash and the hash.
func CopyName(source, hash string) string {
	if limit := maxName - 1 - len(hash); len(source) > limit {
		source = source[:limit]
	}
	return source + "-" + hash
}

// copyMeta is the metadata of the copy of source for set, owned by
// nothing yet (the controller adds the revisions that use it).
func copyMeta(namespace, source, set string, d Data) (metav1.ObjectMeta, error) {
	keys, err := json.Marshal(d.KeyHashes())
	if err != nil {
		return metav1.ObjectMeta{}, fmt.Errorf("encoding the key hashes of %s: %w", source, err)
	}
	return metav1.ObjectMeta{
		Name:        CopyName(source, d.Hash()),
		Namespace:   namespace,
		Labels:      map[string]string{v1alpha1.ConfigCopyOfLabel: labelValue(source), v1alpha1.ConfigSetLabel: labelValue(set)},
		Annotations: map[string]string{v1alpha1.ConfigKeysAnnotation: string(keys)},
	}, nil
}

// labelValue is name when it fits a label value (63 bytes), else its
// first 53 bytes and a hash of the whole: a label is a hint for people
// and selectors; the copy's owners and name are what the controller reads.
func labelValue(name string) string {
	if len(name) <= 63 {
		return name
	}
	sum := sha256.Sum256([]byte(name))
	return name[:53] + "-" + hex.EncodeToString(sum[:])[:9]
}

// ConfigMapCopy is the immutable copy of cm that the revisions of set
// read.
func ConfigMapCopy(cm *corev1.ConfigMap, set string) (*corev1.ConfigMap, error) {
	d := OfConfigMap(cm)
	meta, err := copyMeta(cm.Namespace, cm.Name, set, d)
	if err != nil {
		return nil, err
	}
	immutable := true
	return &corev1.ConfigMap{ObjectMeta: meta, Immutable: &immutable, Data: cm.Data, BinaryData: cm.BinaryData}, nil
}

// SecretCopy is the immutable copy of s that the revisions of set read.
func SecretCopy(s *corev1.Secret, set string) (*corev1.Secret, error) {
	d := OfSecret(s)
	meta, err := copyMeta(s.Namespace, s.Name, set, d)
	if err != nil {
		return nil, err
	}
	immutable := true
	return &corev1.Secret{ObjectMeta: meta, Immutable: &immutable, Type: s.Type, Data: d.Binary}, nil
}

// IsCopyFor reports whether an object with these labels is a copy the
// controller made for set: a template that names it (after an undo,
// which restores a revision's template as it was) reads it as it is.
func IsCopyFor(labels map[string]string, set string) bool {
	_, ok := labels[v1alpha1.ConfigCopyOfLabel]
	return ok && labels[v1alpha1.ConfigSetLabel] == labelValue(set)
}
