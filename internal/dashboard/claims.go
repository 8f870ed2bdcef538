package dashboard

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/ordinal-sh/ordinal/internal/rolloutview"
)

// ClaimRow is one claim of one ordinal: its size and how far its storage
// has come (created, bound, resized).
type ClaimRow struct {
	Ordinal      int32  `json:"ordinal"`
	Name         string `json:"name"`
	Phase        string `json:"phase"`
	Requested    string `json:"requested"`
	Capacity     string `json:"capacity,omitempty"`
	StorageClass string `json:"storageClass,omitempty"`
	Volume       string `json:"volume,omitempty"`
	Progress     string `json:"progress"`
}

// claimRows lists, for each cell, the claims its volume claim templates
// name, found or not.
func claimRows(set *appsv1.StatefulSet, cells []rolloutview.Cell, claims map[string]*corev1.PersistentVolumeClaim) []ClaimRow {
	out := []ClaimRow{}
	for _, c := range cells {
		for i := range set.Spec.VolumeClaimTemplates {
			tmpl := &set.Spec.VolumeClaimTemplates[i]
			name := tmpl.Name + "-" + c.Pod
			out = append(out, claimRow(c.Ordinal, name, tmpl, claims[name]))
		}
	}
	return out
}

func claimRow(ord int32, name string, tmpl *corev1.PersistentVolumeClaim, claim *corev1.PersistentVolumeClaim) ClaimRow {
	row := ClaimRow{Ordinal: ord, Name: name, Phase: "missing", Progress: "not created yet"}
	if q, ok := tmpl.Spec.Resources.Requests[corev1.ResourceStorage]; ok {
		row.Requested = q.String()
	}
	if claim == nil {
		return row
	}
	row.Phase = string(claim.Status.Phase)
	if q, ok := claim.Spec.Resources.Requests[corev1.ResourceStorage]; ok {
		row.Requested = q.String()
	}
	if q, ok := claim.Status.Capacity[corev1.ResourceStorage]; ok {
		row.Capacity = q.String()
	}
	if claim.Spec.StorageClassName != nil {
		row.StorageClass = *claim.Spec.StorageClassName
	}
	row.Volume = claim.Spec.VolumeName
	row.Progress = claimProgress(claim)
	return row
}

// claimProgress says in words where the claim's storage stands.
func claimProgress(claim *corev1.PersistentVolumeClaim) string {
	if claim.DeletionTimestamp != nil {
		return "being deleted"
	}
	for _, c := range claim.Status.Conditions {
		if c.Status != corev1.ConditionTrue {
			continue
		}
		switch c.Type {
		case corev1.PersistentVolumeClaimResizing:
			return "resizing the volume"
		case corev1.PersistentVolumeClaimFileSystemResizePending:
			return "volume resized, file system resize pending"
		}
	}
	switch claim.Status.Phase {
	case corev1.ClaimBound:
		req := claim.Spec.Resources.Requests[corev1.ResourceStorage]
		if capacity, ok := claim.Status.Capacity[corev1.ResourceStorage]; ok && capacity.Cmp(req) < 0 {
			return "bound, waiting to grow to " + req.String()
		}
		return "bound"
	case corev1.ClaimPending:
		return "waiting for a volume"
	case corev1.ClaimLost:
		return "its volume is lost"
	}
	return string(claim.Status.Phase)
}
