package bench

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// Scenario names.
const (
	ScenarioParallelScaleUp   = "parallel-scaleup"
	ScenarioParallelScaleDown = "parallel-scaledown"
	ScenarioOrderedRollout    = "ordered-rollout"
	ScenarioMaxUnavailable    = "maxunavailable-rollout"
	// ScenarioConfigRollout is maxunavailable-rollout's set whose
	// measured step edits the ConfigMap it reads (contenders
	// ordinal-config and ordinal-reload; the others write nothing).
	ScenarioConfigRollout = "config-rollout"
	ScenarioManySets      = "many-sets"
	ScenarioSteady        = "steady-10k"
	// ScenarioScaling and ScenarioScalingSets make the scaling curve: sets
	// created and rolled, then the contender killed and restarted.
	ScenarioScaling     = "scaling"
	ScenarioScalingSets = "scaling-sets"
	// ScenarioNodeDrain drains a node that holds one member of each set
	// (nodedrain.go). A bare `ordinal bench` leaves it out (NewConfig).
	ScenarioNodeDrain = "node-drain"
)

// ScenarioNames lists every scenario in report order.
var ScenarioNames = []string{ScenarioParallelScaleUp, ScenarioParallelScaleDown, ScenarioOrderedRollout,
	ScenarioMaxUnavailable, ScenarioConfigRollout, ScenarioManySets, ScenarioSteady, ScenarioScaling, ScenarioScalingSets, ScenarioNodeDrain}

// Images the scenarios roll between; the simulated nodes never pull them.
const (
	imageV1 = "registry.k8s.io/pause:3.10"
	imageV2 = "registry.k8s.io/pause:3.10-bench2"
)

// Sizes adjusts the scenarios; zero fields keep each scenario's default.
type Sizes struct {
	Replicas    int32         // the single set of the one-set scenarios
	Sets        int           // many-sets, steady-10k, scaling-sets and node-drain
	SetReplicas int32         // replicas per set in many-sets, steady-10k, scaling-sets and node-drain
	Idle        time.Duration // steady-10k's idle window
	ReadyDelay  time.Duration // ordered-rollout's pod readiness delay
}

// step is one harness action followed by a wait for its end state.
type step struct {
	name string
	do   func(ctx context.Context, h *harness) error
}

// scenario is a list of unmeasured setup steps and measured steps.
type scenario struct {
	name     string
	size     string
	setup    []step
	measured []step
	// writeSteps is how many measured steps count API writes (the rest,
	// such as set deletion, are the garbage collector's work); 0 is all.
	writeSteps int
	idle       time.Duration
	// reactions reports the Ready-to-next-write latency; it means something
	// only where each write waits for a pod to turn Ready (OrderedReady).
	reactions bool
	// restart, after the measured window, kills the contender, scales every
	// set up by one while it is down and times its restart (restart.go).
	restart bool
	// drain reports what the node-drain scenario's drain did and the
	// fewest Ready members any set kept (Result.Drain).
	drain bool
}

// setSpec shapes one benchmark StatefulSet.
type setSpec struct {
	name           string
	replicas       int32
	ordered        bool
	maxUnavailable string // "" leaves it unset
	claims         bool
	readyDelay     time.Duration // 0 keeps the plane's default
	// spreadHosts puts every pod of the set on a node of its own: a
	// required anti-affinity among the set's pods on kubernetes.io/hostname.
	spreadHosts bool
	// ownBudget makes an extended set keep its own disruption budget of
	// one pod and move its members off a cordoned node (kinds.go); apps/v1
	// has neither, and its sets are written as they are.
	ownBudget bool
}

func orDefault[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// buildScenario returns the named scenario at the given sizes.
func buildScenario(name string, s Sizes) (scenario, error) {
	switch name {
	case ScenarioParallelScaleUp:
		n := orDefault(s.Replicas, 1000)
		spec := setSpec{name: "web", replicas: n, claims: true}
		return scenario{name: name, size: fmt.Sprintf("1×%d", n),
			measured: []step{{"create", createSets(spec)}}}, nil
	case ScenarioParallelScaleDown:
		n := orDefault(s.Replicas, 1000)
		spec := setSpec{name: "web", replicas: n, claims: true}
		return scenario{name: name, size: fmt.Sprintf("1×%d→0", n),
			setup: []step{{"create", createSets(spec)}}, measured: []step{{"scale-to-0", scaleAll(0)}}}, nil
	case ScenarioOrderedRollout:
		n := orDefault(s.Replicas, 50)
		spec := setSpec{name: "web", replicas: n, ordered: true, claims: true, readyDelay: orDefault(s.ReadyDelay, time.Second)}
		return scenario{name: name, size: fmt.Sprintf("1×%d", n), reactions: true,
			setup: []step{{"create", createSets(spec)}}, measured: []step{{"rollout", updateImageAll(imageV2)}}}, nil
	case ScenarioMaxUnavailable:
		n := orDefault(s.Replicas, 200)
		spec := setSpec{name: "web", replicas: n, maxUnavailable: "25%", claims: true}
		return scenario{name: name, size: fmt.Sprintf("1×%d", n),
			setup: []step{{"create", createSets(spec)}}, measured: []step{{"rollout", updateImageAll(imageV2)}}}, nil
	case ScenarioConfigRollout:
		n := orDefault(s.Replicas, 200)
		spec := setSpec{name: "web", replicas: n, maxUnavailable: "25%", claims: true}
		return scenario{name: name, size: fmt.Sprintf("1×%d", n),
			setup: []step{{"create", createSets(spec)}}, measured: []step{{"config", editConfigAll("2")}}}, nil
	case ScenarioManySets:
		sets, r := orDefault(s.Sets, 500), orDefault(s.SetReplicas, 5)
		specs := manySpecs(sets, setSpec{replicas: r, claims: true})
		return scenario{name: name, size: fmt.Sprintf("%d×%d", sets, r), writeSteps: 3,
			measured: []step{{"create", createSets(specs...)}, {"scale", scaleAll(r + r/2 + 1)},
				{"update", updateImageAll(imageV2)}, {"delete", deleteAll()}}}, nil
	case ScenarioSteady:
		sets, r := orDefault(s.Sets, 1000), orDefault(s.SetReplicas, 10)
		specs := manySpecs(sets, setSpec{replicas: r})
		return scenario{name: name, size: fmt.Sprintf("%d×%d", sets, r), idle: orDefault(s.Idle, 2*time.Minute),
			setup: []step{{"create", createSets(specs...)}}}, nil
	case ScenarioScaling, ScenarioScalingSets:
		// Parallel, a quarter of the pods rolled at a time, no claims: the
		// controller's cost as a set grows, not the plane's volume binding.
		proto := setSpec{name: "web", replicas: orDefault(s.Replicas, 1000), maxUnavailable: "25%"}
		specs, size := []setSpec{proto}, fmt.Sprintf("1×%d", proto.replicas)
		if name == ScenarioScalingSets {
			sets := orDefault(s.Sets, 1000)
			proto.replicas = orDefault(s.SetReplicas, 2)
			specs, size = manySpecs(sets, proto), fmt.Sprintf("%d×%d", sets, proto.replicas)
		}
		return scenario{name: name, size: size, restart: true,
			measured: []step{{"create", createSets(specs...)}, {"rollout", updateImageAll(imageV2)}}}, nil
	case ScenarioNodeDrain:
		return nodeDrainScenario(s), nil
	}
	return scenario{}, fmt.Errorf("unknown scenario %q (known: %v)", name, ScenarioNames)
}

func manySpecs(n int, proto setSpec) []setSpec {
	out := make([]setSpec, n)
	for i := range out {
		out[i] = proto
		out[i].name = fmt.Sprintf("s%04d", i)
	}
	return out
}

// statefulSet builds the API object for spec.
func statefulSet(spec setSpec) *appsv1.StatefulSet {
	labels := map[string]string{setLabel: spec.name}
	ss := &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: spec.name},
		Spec: appsv1.StatefulSetSpec{
			Replicas:            ptr.To(spec.replicas),
			Selector:            &metav1.LabelSelector{MatchLabels: labels},
			ServiceName:         spec.name,
			PodManagementPolicy: appsv1.ParallelPodManagement,
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					TerminationGracePeriodSeconds: ptr.To[int64](1),
					Containers:                    []corev1.Container{{Name: "app", Image: imageV1}},
				},
			},
		},
	}
	if spec.ordered {
		ss.Spec.PodManagementPolicy = appsv1.OrderedReadyPodManagement
	}
	if spec.spreadHosts {
		ss.Spec.Template.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{setLabel: spec.name}},
				TopologyKey:   corev1.LabelHostname,
			}},
		}}
	}
	if spec.readyDelay > 0 {
		ss.Spec.Template.Annotations = map[string]string{"sim.ordinal.dev/ready-delay": spec.readyDelay.String()}
	}
	if spec.maxUnavailable != "" {
		mu := intstr.Parse(spec.maxUnavailable)
		ss.Spec.UpdateStrategy = appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType,
			RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{MaxUnavailable: &mu}}
	}
	if spec.claims {
		ss.Spec.Template.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "data", MountPath: "/data"}}
		ss.Spec.VolumeClaimTemplates = []corev1.PersistentVolumeClaim{{
			ObjectMeta: metav1.ObjectMeta{Name: "data"},
			Spec: corev1.PersistentVolumeClaimSpec{
				AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("100Mi")}},
			},
		}}
	}
	return ss
}
