package learn

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// fixture is a set's template, pods and events as a cluster showed them.
type fixture struct {
	Set      string                 `json:"set"`
	Template corev1.PodTemplateSpec `json:"template"`
	Pods     []*corev1.Pod          `json:"pods"`
	Events   []*corev1.Event        `json:"events"`
}

func load(t *testing.T, name string) Input {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var f fixture
	if err := yaml.UnmarshalStrict(raw, &f); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return Input(f)
}

// brief is what a test checks of one learned pod.
type brief struct {
	Name                    string
	StartUp, Shutdown       time.Duration
	StartUpFrom, ShutdownOf Source
	Restarts                int32
	State                   string
}

func briefs(t Timings) []brief {
	var out []brief
	for _, p := range t.Pods {
		out = append(out, brief{p.Name, p.StartUp.D(), p.Shutdown.D(), p.StartUpFrom, p.ShutdownFrom, p.Restarts, p.State})
	}
	return out
}

func TestAfterARolloutEachPodsTimesComeFromItsConditionsAndTheRolloutsEvents(t *testing.T) {
	got := Learn(load(t, "rolled-out.yaml"))
	want := []brief{
		{"web-0", 5 * time.Second, 4 * time.Second, FromConditions, FromEvents, 0, ""},
		// Restarted: its Ready time is the restart's, so its peers stand in.
		{"web-1", 4 * time.Second, 3 * time.Second, FromPeers, FromEvents, 1, ""},
		// The other set's delete of a pod of the same name is not web-2's.
		{"web-2", 3 * time.Second, 4 * time.Second, FromConditions, FromEvents, 0, ""},
	}
	if diff := cmp.Diff(want, briefs(got)); diff != "" {
		t.Errorf("pods (-want +got):\n%s", diff)
	}
	if s := got.Pods[0].Stages; s == nil || s.Scheduling != 0 || s.Initializing.D() != time.Second || s.Starting.D() != 4*time.Second {
		t.Errorf("web-0's stages = %+v, want 0s scheduling, 1s initializing, 4s starting", s)
	}
	if got.StartUp.D() != 4*time.Second || got.StartUpFrom != FromPeers || got.Shutdown.D() != 4*time.Second || got.ShutdownFrom != FromPeers {
		t.Errorf("fallbacks = %s from %s, %s from %s; want the peers' medians 4s and 4s", got.StartUp, got.StartUpFrom, got.Shutdown, got.ShutdownFrom)
	}
	if len(got.Notes) != 1 || !strings.Contains(got.Notes[0], "start-up not in the conditions of web-1") {
		t.Errorf("notes = %q, want one about web-1's start-up", got.Notes)
	}
}

func TestWithoutATraceTheProbeAndTheStatedDefaultsStandIn(t *testing.T) {
	got := Learn(load(t, "fresh.yaml"))
	want := []brief{
		{"web-0", 8 * time.Second, 0, FromProbe, FromDefault, 0, ""},
		{"web-1", 8 * time.Second, 0, FromProbe, FromDefault, 7, "CrashLoopBackOff"},
	}
	if diff := cmp.Diff(want, briefs(got)); diff != "" {
		t.Errorf("pods (-want +got):\n%s", diff)
	}
	if got.GracePeriod.D() != 30*time.Second {
		t.Errorf("grace period %s, want the default 30s", got.GracePeriod)
	}
	text := strings.Join(got.Notes, "\n")
	for _, want := range []string{"start-up not in the conditions of web-0, web-1", "played as 8.0s from probe",
		"no shutdown in the events of the last rollout for web-0, web-1", "up to its grace period of 30.0s",
		"not Ready in the source: web-1 (CrashLoopBackOff)"} {
		if !strings.Contains(text, want) {
			t.Errorf("notes miss %q:\n%s", want, text)
		}
	}
}

func TestWithNeitherTraceNorProbeAPodStartsInTheDefaultSecond(t *testing.T) {
	in := load(t, "fresh.yaml")
	in.Template.Spec.Containers[0].ReadinessProbe = nil
	got := Learn(in)
	if got.StartUp.D() != DefaultStartUp || got.StartUpFrom != FromDefault {
		t.Errorf("start-up %s from %s, want %s from default", got.StartUp, got.StartUpFrom, DefaultStartUp)
	}
}

func TestASimulatedPodPlaysItsShutdownAfterThePreStopSleepWithinItsGracePeriod(t *testing.T) {
	got := Learn(load(t, "rolled-out.yaml"))
	for _, tt := range []struct {
		pod         string
		ready, stop time.Duration
	}{
		{"web-0", 5 * time.Second, 2 * time.Second}, // 4s shutdown, 2s of it the preStop sleep
		{"web-1", 4 * time.Second, time.Second},
		{"web-7", 4 * time.Second, 2 * time.Second}, // a new ordinal: the peers' medians
	} {
		ready, stop := got.For(tt.pod)
		if ready != tt.ready || stop != tt.stop {
			t.Errorf("For(%s) = %s, %s; want %s, %s", tt.pod, ready, stop, tt.ready, tt.stop)
		}
	}
	got.Pods[0].Shutdown = Seconds(time.Minute)
	if _, stop := got.For("web-0"); stop != 18*time.Second {
		t.Errorf("a shutdown past the grace period plays %s after the sleep, want the 18s the 20s grace period leaves", stop)
	}
}

func TestSecondsReadAndWriteAsSecondsInJSON(t *testing.T) {
	s := Seconds(2500 * time.Millisecond)
	raw, err := s.MarshalJSON()
	if err != nil || string(raw) != "2.5" {
		t.Fatalf("MarshalJSON = %s, %v; want 2.5", raw, err)
	}
	var back Seconds
	if err := back.UnmarshalJSON(raw); err != nil || back != s {
		t.Errorf("UnmarshalJSON(%s) = %s, %v", raw, back, err)
	}
}

// Recorded on a real kubelet: the rollout deleted real-2 at :29 and
// created it at :32, real-1 at :33 and :34, real-0 at :35 and :36; each
// pod was Ready a second after it was scheduled. The kubelet's Killing
// events (real-2's at :31, when its container stopped) are not used where
// the controller's events pair.
func TestARealKubeletsRolloutIsLearnedFromItsOwnTrace(t *testing.T) {
	got := Learn(load(t, "real-node.yaml"))
	want := []brief{
		{"real-0", time.Second, time.Second, FromConditions, FromEvents, 0, ""},
		{"real-1", time.Second, time.Second, FromConditions, FromEvents, 0, ""},
		{"real-2", time.Second, 3 * time.Second, FromConditions, FromEvents, 0, ""},
	}
	if diff := cmp.Diff(want, briefs(got)); diff != "" {
		t.Errorf("pods (-want +got):\n%s", diff)
	}
	if got.Notes != nil || got.GracePeriod.D() != 10*time.Second {
		t.Errorf("notes %q, grace period %s; want none and the example's 10s", got.Notes, got.GracePeriod)
	}
}
