package setops

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/osts"
	"github.com/ordinal-sh/ordinal/internal/planner"
)

// PatchOp is one operation of a JSON patch (RFC 6902).
type PatchOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	Value any    `json:"value"`
}

// Removal is `ordinal scale --remove`: the pods that go and the one JSON
// patch that removes exactly them. The patch first tests the set's
// generation, so it applies only to the spec as read: had it changed in
// between (replicas, reservations), other pods could go. A status the
// controller wrote meanwhile does not stop it.
type Removal struct {
	// Pods are the names of the pods that go, lowest ordinal first.
	Pods []string
	// Ordinals are the ordinals reserved, lowest first.
	Ordinals []int32
	// Replicas and NewReplicas are spec.replicas before and after.
	Replicas, NewReplicas int32
	Patch                 []PatchOp
}

// NewRemoval checks that each ordinal holds a pod of the extended set
// and is not reserved yet, and builds the patch that reserves them and
// lowers spec.replicas by as many: the planner then removes exactly those
// pods. pods are the pods the set controls.
func NewRemoval(set *v1alpha1.StatefulSet, pods []*corev1.Pod, ordinals []int32) (Removal, error) {
	held, err := heldOrdinals(set, pods, ordinals)
	if err != nil {
		return Removal{}, err
	}
	replicas := ptr.Deref(set.Spec.Replicas, 1)
	r := Removal{Ordinals: ordinals, Replicas: replicas, NewReplicas: replicas - int32(len(ordinals))}
	for _, ord := range ordinals {
		r.Pods = append(r.Pods, held[ord].Name)
	}
	r.Patch = []PatchOp{{Op: "test", Path: "/metadata/generation", Value: set.Generation}}
	if len(set.Spec.ReserveOrdinals) == 0 {
		r.Patch = append(r.Patch, PatchOp{Op: "add", Path: "/spec/reserveOrdinals", Value: ordinals})
	} else {
		for _, ord := range ordinals {
			r.Patch = append(r.Patch, PatchOp{Op: "add", Path: "/spec/reserveOrdinals/-", Value: ord})
		}
	}
	// "add" sets an object member whether or not it is there yet.
	r.Patch = append(r.Patch, PatchOp{Op: "add", Path: "/spec/replicas", Value: r.NewReplicas})
	return r, nil
}

// heldOrdinals maps each of ordinals to the running pod at it, or names
// every ordinal that has none, is reserved, or whose pod is already
// leaving.
func heldOrdinals(set *v1alpha1.StatefulSet, pods []*corev1.Pod, ordinals []int32) (map[int32]*corev1.Pod, error) {
	reserved, err := v1alpha1.ParseReserveOrdinals(set.Spec.ReserveOrdinals)
	if err != nil {
		return nil, fmt.Errorf("%w; correct it first", err)
	}
	view := osts.View(set)
	ranges := osts.Extended(set).Reserved
	own := planner.NewLayout(planner.StartOrdinal(view), planner.Replicas(view), ranges)
	byOrdinal := podsByOrdinal(set.Name, pods)
	held := map[int32]*corev1.Pod{}
	var errs []error
	for _, ord := range ordinals {
		pod := byOrdinal[ord]
		switch {
		case planner.Reserved(ranges, ord):
			errs = append(errs, fmt.Errorf("ordinal %d is already reserved (spec.reserveOrdinals %s)", ord, reserveWords(reserved)))
		case pod == nil || !inLayout(own, ord):
			errs = append(errs, fmt.Errorf("ordinal %d holds no pod of %s/%s (its pods: %s)", ord, ExtendedKind.Short(), set.Name, podWords(set.Name, own, byOrdinal)))
		case pod.DeletionTimestamp != nil:
			errs = append(errs, fmt.Errorf("%s is already terminating", pod.Name))
		default:
			held[ord] = pod
		}
	}
	return held, errors.Join(errs...)
}

// podsByOrdinal maps the set's pods by ordinal.
func podsByOrdinal(setName string, pods []*corev1.Pod) map[int32]*corev1.Pod {
	out := map[int32]*corev1.Pod{}
	for _, p := range pods {
		if ord, ok := planner.ParseOrdinal(setName, p.Name); ok {
			out[ord] = p
		}
	}
	return out
}

func inLayout(l planner.Layout, ord int32) bool {
	_, ok := l.Index(ord)
	return ok
}

// podWords names the pods at the set's own ordinals: "web-0, web-2".
func podWords(setName string, own planner.Layout, byOrdinal map[int32]*corev1.Pod) string {
	var names []string
	for _, ord := range slices.Sorted(maps.Keys(byOrdinal)) {
		if inLayout(own, ord) {
			names = append(names, planner.PodName(setName, ord))
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

func reserveWords(ranges []v1alpha1.OrdinalRange) string {
	words := make([]string, 0, len(ranges))
	for _, r := range ranges {
		if r.Low == r.High {
			words = append(words, strconv.Itoa(int(r.Low)))
		} else {
			words = append(words, fmt.Sprintf("%d-%d", r.Low, r.High))
		}
	}
	return "[" + strings.Join(words, ", ") + "]"
}

// ParseOrdinals reads a comma-separated list of ordinals, "3,5": decimal
// digits only, each at most once. The result is sorted.
func ParseOrdinals(list string) ([]int32, error) {
	var out []int32
	for _, field := range strings.Split(list, ",") {
		field = strings.TrimSpace(field)
		n, err := strconv.ParseInt(field, 10, 32)
		if err != nil || n < 0 || strings.TrimLeft(field, "0123456789") != "" {
			return nil, fmt.Errorf("%q is not an ordinal: give ordinals as numbers separated by commas, like 3,5", field)
		}
		if slices.Contains(out, int32(n)) {
			return nil, fmt.Errorf("ordinal %d is given twice", n)
		}
		out = append(out, int32(n))
	}
	slices.Sort(out)
	return out, nil
}
