package v1alpha1

// PausedAnnotation records, on a set paused by `ordinal rollout pause`, the
// partition that resume restores ("none" when the set had none). It is the
// only pause state of an apps/v1 set, so a pause survives restarts of the
// CLI and controller; an extended set pauses by its own field
// (spec.updateStrategy.rollingUpdate.paused) and carries the annotation
// only when it was migrated while paused, for resume to restore.
const PausedAnnotation = "rollout.ordinal.dev/paused-partition"
