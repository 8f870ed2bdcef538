package planner_test

import (
	"fmt"
	"math/rand/v2"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ordinal-sh/ordinal/internal/planner"
	"github.com/ordinal-sh/ordinal/internal/testgen"
)

// chooser makes the generator's choices; property tests use a seeded PRNG
// and the fuzz target reads the fuzzer's bytes, so both explore the same
// space of inputs.
type chooser interface {
	intn(n int) int
}

type prng struct{ r *rand.Rand }

func (p prng) intn(n int) int { return p.r.IntN(n) }

// bytesChooser reads one byte per choice and answers 0 once the bytes run
// out, so short fuzz inputs give small, simple sets.
type bytesChooser struct {
	data []byte
	i    int
}

func (b *bytesChooser) intn(n int) int {
	if b.i >= len(b.data) {
		return 0
	}
	b.i++
	return int(b.data[b.i-1]) % n
}

// generated is a random input with the fixture it was built from.
type generated struct {
	f  fixture
	in planner.Input
}

func generate(c chooser) generated {
	f := generateSet(c)
	other := testgen.RevisionOf(testgen.StatefulSet("web", testgen.Image("app:0")), 0)
	revs := []*appsv1.ControllerRevision{f.cur, f.upd, other}
	var pods []*corev1.Pod
	top := int32(0)
	if f.set.Spec.Ordinals != nil {
		top = f.set.Spec.Ordinals.Start
	}
	top += *f.set.Spec.Replicas + 3
	for ord := int32(0); ord < top; ord++ {
		if c.intn(4) > 0 {
			pods = append(pods, generatePod(c, f, ord, revs[c.intn(len(revs))]))
		}
	}
	if c.intn(6) == 0 {
		pods = append(pods, testgen.Pod(f.set, 0, testgen.Named("web-x")))
	}
	in := f.input(pods, generateClaims(c, f, top)...)
	in.Now = now
	return generated{f: f, in: in}
}

func generateSet(c chooser) fixture {
	opts := []testgen.SetOption{testgen.Replicas(int32(c.intn(6)))}
	if c.intn(3) == 0 {
		opts = append(opts, testgen.Start(int32(c.intn(4))))
	}
	if c.intn(2) == 0 {
		opts = append(opts, testgen.Parallel())
	}
	switch c.intn(6) {
	case 0:
		opts = append(opts, testgen.OnDelete())
	case 1:
		opts = append(opts, testgen.NoRollingUpdate(), testgen.Status(func(s *appsv1.StatefulSetStatus) { s.CurrentReplicas = int32(c.intn(5)) }))
	default:
		opts = append(opts, testgen.Partition(int32(c.intn(5))))
	}
	switch c.intn(4) {
	case 0:
		opts = append(opts, testgen.MaxUnavailable(int32(1+c.intn(3))))
	case 1:
		opts = append(opts, testgen.MaxUnavailablePercent([]string{"10%", "50%", "100%"}[c.intn(3)]))
	}
	if c.intn(2) == 0 {
		opts = append(opts, testgen.MinReadySeconds(30))
	}
	if n := c.intn(3); n > 0 {
		opts = append(opts, testgen.ClaimTemplates([]string{"data", "logs"}[:n]...))
	}
	policies := []appsv1.PersistentVolumeClaimRetentionPolicyType{retain, del}
	opts = append(opts, testgen.Retention(policies[c.intn(2)], policies[c.intn(2)]))
	if c.intn(12) == 0 {
		opts = append(opts, testgen.Deleting(now))
	}
	if c.intn(3) == 0 {
		return steady(opts...)
	}
	return rollout(opts...)
}

func generatePod(c chooser, f fixture, ord int32, rev *appsv1.ControllerRevision) *corev1.Pod {
	states := []testgen.PodOption{
		testgen.Ready(testgen.Epoch), testgen.Ready(now.Add(-time.Duration(c.intn(60)) * time.Second)),
		testgen.NotReady(now), testgen.Pending(), testgen.Failed(), testgen.Succeeded(), testgen.NoPhase(),
	}
	opts := []testgen.PodOption{testgen.At(rev), states[c.intn(len(states))]}
	if c.intn(5) == 0 {
		opts = append(opts, testgen.Terminating(now))
	}
	if c.intn(10) == 0 {
		opts = append(opts, testgen.PodLabel(appsv1.StatefulSetPodNameLabel, ""))
	}
	return testgen.Pod(f.set, ord, opts...)
}

func generateClaims(c chooser, f fixture, top int32) []*corev1.PersistentVolumeClaim {
	var claims []*corev1.PersistentVolumeClaim
	for _, tmpl := range f.set.Spec.VolumeClaimTemplates {
		for ord := int32(0); ord < top; ord++ {
			if c.intn(3) == 0 {
				continue
			}
			pod := fmt.Sprintf("web-%d", ord)
			owners := []testgen.ClaimOption{
				nil, testgen.OwnedBySet(f.set),
				testgen.OwnerRef(testgen.ControllerRef("v1", "Pod", pod, types.UID("uid-"+pod))),
				testgen.OwnerRef(testgen.ControllerRef("v1", "Pod", pod, "uid-earlier")),
				testgen.OwnerRef(testgen.ControllerRef("example.com/v1", "Backup", "b", "uid-b")),
			}
			var opts []testgen.ClaimOption
			if o := owners[c.intn(len(owners))]; o != nil {
				opts = append(opts, o)
			}
			if c.intn(8) == 0 {
				opts = append(opts, testgen.ClaimDeleting(now))
			}
			claims = append(claims, testgen.Claim(f.set, tmpl.Name, ord, opts...))
		}
	}
	return claims
}
