package integration

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
)

func setEvent(reason, message string) corev1.Event {
	return corev1.Event{InvolvedObject: corev1.ObjectReference{Kind: "StatefulSet"}, Type: "Normal", Reason: reason, Message: message}
}

// Two runs that folded different messages into the combined event read the
// same, and a group that was not folded keeps its ordinals.
func TestFoldedEventGroupsAreComparedByWording(t *testing.T) {
	run := func(last string) []corev1.Event {
		return []corev1.Event{
			setEvent("SuccessfulCreate", "Create Pod web-0 in StatefulSet web successful"),
			setEvent("SuccessfulCreate", "create Claim www-web-0 Pod web-0 in StatefulSet web success"),
			setEvent("SuccessfulCreate", combinedPrefix+"Create Pod "+last+" in StatefulSet web successful"),
			setEvent("SuccessfulDelete", "Delete Pod web-4 in StatefulSet web successful"),
			{InvolvedObject: corev1.ObjectReference{Kind: "Pod"}, Type: "Normal", Reason: "Scheduled", Message: "web-1"},
		}
	}
	want := []string{
		"Normal SuccessfulCreate: Create Pod web-N in StatefulSet web successful",
		"Normal SuccessfulCreate: create Claim www-web-N Pod web-N in StatefulSet web success",
		"Normal SuccessfulDelete: Delete Pod web-4 in StatefulSet web successful",
	}
	for _, last := range []string{"web-3", "web-4"} {
		if diff := cmp.Diff(want, distinctSetEvents(run(last))); diff != "" {
			t.Errorf("folded at %s (-want +got):\n%s", last, diff)
		}
	}
	unfolded := run("web-3")[:2]
	unfolded = append(unfolded, setEvent("SuccessfulCreate", "Create Pod web-3 in StatefulSet web successful"))
	if got := distinctSetEvents(unfolded); !cmp.Equal(got, []string{
		"Normal SuccessfulCreate: Create Pod web-0 in StatefulSet web successful",
		"Normal SuccessfulCreate: Create Pod web-3 in StatefulSet web successful",
		"Normal SuccessfulCreate: create Claim www-web-0 Pod web-0 in StatefulSet web success",
	}) {
		t.Errorf("an unfolded group lost its ordinals: %v", got)
	}
}
