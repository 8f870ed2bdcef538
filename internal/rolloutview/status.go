package rolloutview

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/planner"
)

// Cell states, in the words the status view uses.
const (
	StateReady       = "Ready"
	StateStarting    = "starting"
	StateTerminating = "terminating"
	StateFailing     = "failing"
	StateMissing     = "missing"
)

// failingReasons are container waiting reasons that do not clear up by
// waiting: the pod needs a new template or a new image.
var failingReasons = map[string]bool{
	"CrashLoopBackOff": true, "ErrImagePull": true, "ImagePullBackOff": true,
	"InvalidImageName": true, "CreateContainerConfigError": true,
	"CreateContainerError": true, "RunContainerError": true,
}

// Snapshot is the state of a set's rollout at one moment: what `status`
// draws and what `status -o json|yaml` prints.
type Snapshot struct {
	// Resource is the kind, as messages name it: ResourceAppsV1 or
	// ResourceExtended.
	Resource            string `json:"resource"`
	Namespace           string `json:"namespace"`
	Name                string `json:"name"`
	Strategy            string `json:"strategy"`
	PodManagementPolicy string `json:"podManagementPolicy"`
	Replicas            int32  `json:"replicas"`
	StartOrdinal        int32  `json:"startOrdinal"`
	// Partition is rollingUpdate.partition; nil for OnDelete sets.
	Partition *int32 `json:"partition,omitempty"`
	// PausedPartition is the partition resume restores; empty when the set
	// is not paused.
	PausedPartition    string `json:"pausedPartition,omitempty"`
	ReadyReplicas      int32  `json:"readyReplicas"`
	UpdatedReplicas    int32  `json:"updatedReplicas"`
	CurrentRevision    string `json:"currentRevision"`
	UpdateRevision     string `json:"updateRevision"`
	Generation         int64  `json:"generation"`
	ObservedGeneration int64  `json:"observedGeneration"`
	Cells              []Cell `json:"pods"`
	// MoreMissing counts the set's ordinals without a pod that Cells
	// leaves out: it lists at most MaxMissingCells of them, lowest first.
	MoreMissing int32 `json:"moreMissing,omitempty"`
	// Done and Message are kubectl's verdict (rollout_status.go), so the two
	// tools agree on when a rollout is complete.
	Done    bool   `json:"done"`
	Message string `json:"message"`
	// Failure names a pod at the update revision that will not recover by
	// waiting; empty when none is.
	Failure string `json:"failure,omitempty"`
	// Failed is true when the controller declared the rollout failed
	// (extended sets only); Failure then says why.
	Failed bool `json:"failed,omitempty"`
	// Err is kubectl's error for sets it cannot follow (OnDelete).
	Err string `json:"error,omitempty"`
	// Extended is what an extended set adds; nil for apps/v1.
	Extended *ExtendedState `json:"extended,omitempty"`
}

// Cell is one ordinal of the set.
type Cell struct {
	Ordinal  int32  `json:"ordinal"`
	Pod      string `json:"pod"`
	Revision string `json:"revision,omitempty"`
	Updated  bool   `json:"updated"`
	State    string `json:"state"`
	Reason   string `json:"reason,omitempty"`
	// Role is the pod's role label under an extended set's spec.roles.
	Role string `json:"role,omitempty"`
	// RoleProbe says since when and why the role probe of the pod fails,
	// empty while it answers (or without a probe).
	RoleProbe string `json:"roleProbe,omitempty"`
	// Group is the extended set's override (spec.overrides) that lists
	// the ordinal, empty when none does.
	Group string `json:"group,omitempty"`
}

// NewSnapshot describes set and its pods. Pods outside the ordinal range
// (being scaled down) get cells too, after the range. update names the
// update revision when the caller resolved it; empty uses
// status.updateRevision, which is stale until the controller observes a
// new generation.
func NewSnapshot(set *appsv1.StatefulSet, pods []*corev1.Pod, update string) Snapshot {
	s := Snapshot{
		Resource: Resource(set), Namespace: set.Namespace, Name: set.Name,
		Strategy:            string(set.Spec.UpdateStrategy.Type),
		PodManagementPolicy: string(set.Spec.PodManagementPolicy),
		Replicas:            planner.Replicas(set), StartOrdinal: planner.StartOrdinal(set),
		PausedPartition: set.Annotations[v1alpha1.PausedAnnotation],
		ReadyReplicas:   set.Status.ReadyReplicas, UpdatedReplicas: set.Status.UpdatedReplicas,
		CurrentRevision: set.Status.CurrentRevision, UpdateRevision: set.Status.UpdateRevision,
		Generation: set.Generation, ObservedGeneration: set.Status.ObservedGeneration,
	}
	if ru := set.Spec.UpdateStrategy.RollingUpdate; ru != nil && ru.Partition != nil {
		p := *ru.Partition
		s.Partition = &p
	}
	if update != "" {
		s.UpdateRevision = update
	}
	s.Cells, s.MoreMissing = cellsAt(set.Name, planner.NewLayout(planner.StartOrdinal(set), planner.Replicas(set), nil), pods, s.UpdateRevision)
	s.Done, s.Message, s.Err = kubectlVerdict(set)
	s.Failure = failure(s)
	return s
}

// MaxMissingCells bounds the cells of ordinals without a pod that a
// snapshot lists: a set scaled to a million replicas with three pods is
// three cells, a hundred missing ones and a count of the rest, not a
// million cells.
const MaxMissingCells = 100

// cellsAt lists the set's ordinals (layout), in order, then any other pod
// of the set by ordinal: pods being removed, or above the range. Of the
// ordinals without a pod it lists the first MaxMissingCells and counts
// the rest, so what it costs follows the pods, not spec.replicas.
func cellsAt(setName string, layout planner.Layout, pods []*corev1.Pod, update string) ([]Cell, int32) {
	type member struct {
		ord int32
		pod *corev1.Pod
	}
	var in []member
	var others []Cell
	for _, p := range pods {
		ord, ok := planner.ParseOrdinal(setName, p.Name)
		switch _, inRange := layout.Index(ord); {
		case !ok:
		case inRange && p.Name == planner.PodName(setName, ord):
			in = append(in, member{ord, p})
		default:
			others = append(others, cellOf(ord, p.Name, p, update))
		}
	}
	slices.SortFunc(in, func(a, b member) int { return cmp.Compare(a.ord, b.ord) })
	out := make([]Cell, 0, len(in)+min(int(layout.Len())-len(in), MaxMissingCells)+len(others))
	listed, more := 0, int64(0)
	missing := func(from, to int64) { // the ordinals from..to have no pod
		for ; from <= to && listed < MaxMissingCells; from, listed = from+1, listed+1 {
			out = append(out, cellOf(int32(from), planner.PodName(setName, int32(from)), nil, update))
		}
		more += max(to-from+1, 0)
	}
	j := 0
	for _, run := range layout.Runs() {
		next := int64(run.Low)
		for ; j < len(in) && int64(in[j].ord) <= int64(run.High); j++ {
			missing(next, int64(in[j].ord)-1)
			out = append(out, cellOf(in[j].ord, in[j].pod.Name, in[j].pod, update))
			next = int64(in[j].ord) + 1
		}
		missing(next, int64(run.High))
	}
	slices.SortFunc(others, func(a, b Cell) int { return cmp.Compare(a.Ordinal, b.Ordinal) })
	return append(out, others...), int32(more)
}

func cellOf(ord int32, name string, pod *corev1.Pod, update string) Cell {
	c := Cell{Ordinal: ord, Pod: name, State: StateMissing}
	if pod == nil {
		return c
	}
	c.Revision = pod.Labels[appsv1.StatefulSetRevisionLabel]
	c.Updated = update != "" && c.Revision == update
	c.State, c.Reason = PodState(pod)
	return c
}

// PodState classifies a pod for its cell: the state and, unless Ready, why.
func PodState(pod *corev1.Pod) (state, reason string) {
	if pod.DeletionTimestamp != nil {
		return StateTerminating, ""
	}
	if pod.Status.Phase == corev1.PodFailed || pod.Status.Phase == corev1.PodSucceeded {
		return StateFailing, "pod " + string(pod.Status.Phase) + containerReason(pod)
	}
	for _, cs := range pod.Status.ContainerStatuses {
		if w := cs.State.Waiting; w != nil && failingReasons[w.Reason] {
			return StateFailing, joinReason(w.Reason, w.Message)
		}
	}
	if planner.IsRunningAndReady(pod) {
		return StateReady, ""
	}
	if pod.Status.Phase == corev1.PodRunning {
		return StateStarting, "Running, not Ready"
	}
	for _, cs := range pod.Status.ContainerStatuses {
		if w := cs.State.Waiting; w != nil && w.Reason != "" {
			return StateStarting, joinReason(w.Reason, w.Message)
		}
	}
	return StateStarting, string(pod.Status.Phase)
}

func containerReason(pod *corev1.Pod) string {
	for _, cs := range pod.Status.ContainerStatuses {
		if t := cs.State.Terminated; t != nil && t.Reason != "" {
			return fmt.Sprintf(": container %s %s (exit code %d)", cs.Name, t.Reason, t.ExitCode)
		}
	}
	return ""
}

func joinReason(reason, message string) string {
	if message == "" {
		return reason
	}
	return reason + ": " + message
}

// kubectlVerdict is kubectl's StatefulSetStatusViewer, which reads only the
// set's spec and status, quirks included: with
// a rollingUpdate block the verdict is "partitioned roll out complete" even
// at partition 0, and currentRevision is never compared.
func kubectlVerdict(set *appsv1.StatefulSet) (done bool, message, errMessage string) {
	if set.Spec.UpdateStrategy.Type != appsv1.RollingUpdateStatefulSetStrategyType {
		return true, "", "rollout status is only available for RollingUpdate strategy type"
	}
	st, n := set.Status, set.Spec.Replicas
	if st.ObservedGeneration == 0 || set.Generation > st.ObservedGeneration {
		return false, "Waiting for statefulset spec update to be observed...", ""
	}
	if n != nil && st.ReadyReplicas < *n {
		return false, fmt.Sprintf("Waiting for %d pods to be ready...", *n-st.ReadyReplicas), ""
	}
	if ru := set.Spec.UpdateStrategy.RollingUpdate; ru != nil {
		if n != nil && ru.Partition != nil && st.UpdatedReplicas < *n-*ru.Partition {
			return false, fmt.Sprintf("Waiting for partitioned roll out to finish: %d out of %d new pods have been updated...",
				st.UpdatedReplicas, *n-*ru.Partition), ""
		}
		return true, fmt.Sprintf("partitioned roll out complete: %d new pods have been updated...", st.UpdatedReplicas), ""
	}
	if st.UpdateRevision != st.CurrentRevision {
		return false, fmt.Sprintf("waiting for statefulset rolling update to complete %d pods at revision %s...",
			st.UpdatedReplicas, st.UpdateRevision), ""
	}
	return true, fmt.Sprintf("statefulset rolling update complete %d pods at revision %s...", st.CurrentReplicas, st.CurrentRevision), ""
}

// failure reports the first pod at the update revision that is failing.
func failure(s Snapshot) string {
	if s.Done {
		return ""
	}
	for _, c := range s.Cells {
		if c.Updated && c.State == StateFailing {
			return fmt.Sprintf("%s (revision %s) is failing: %s", c.Pod, c.Revision, c.Reason)
		}
	}
	return ""
}

// Age renders a duration the way kubectl's AGE column does, coarsely.
func Age(d time.Duration) string {
	switch {
	case d < 0:
		return "0s"
	case d < 2*time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < 2*time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}
