package doctor

import (
	"fmt"
	"strings"
)

// alongside is the check's answer from kube-controller-manager's flags
// when Ordinal leaves apps/v1 sets to the built-in controller: running is
// as it must be; off leaves apps/v1 StatefulSets without a controller.
func (f kcmFlags) alongside() Result {
	flag := "--controllers=" + f.controllers
	if f.on() {
		return Result{Check: checkBuiltinName, Status: Info, Message: fmt.Sprintf(
			"running, as it must here: kube-system/%s runs with %s; %s", f.pod, flag, extendedOnlyNote)}
	}
	return Result{Check: checkBuiltinName, Status: Fail, Message: fmt.Sprintf(
		"off: kube-system/%s runs with %s, and Ordinal runs with --manage-apps-v1=false, so no controller manages apps/v1 StatefulSets: "+
			"run Ordinal with --manage-apps-v1=true (the chart's manageAppsV1), or turn the built-in controller back on", f.pod, flag)}
}

// alongside is the check's answer from the traces when Ordinal leaves
// apps/v1 sets to the built-in controller: whatever they show, it informs.
func (tr traces) alongside() Result {
	var found string
	switch {
	case len(tr.signs) > 0:
		found = "running, as it must here: " + strings.Join(tr.signs, "; ") + " (" + tr.window + ")"
	case tr.unknown != nil:
		found = tr.unknown.Message
	default:
		found = tr.none() + ", and " + tr.hidden
	}
	return Result{Check: checkBuiltinName, Status: Info, Message: found + "; " + extendedOnlyNote}
}
