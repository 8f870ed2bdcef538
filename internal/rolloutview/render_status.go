package rolloutview

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// barWidth is the progress bar's width in characters.
const barWidth = 30

// RenderStatus writes the status view of s: a header, the progress bar,
// the partition line, one cell per ordinal and kubectl's verdict last, so
// the final line of `ordinal rollout status` and `kubectl rollout status`
// read the same.
func RenderStatus(w io.Writer, s Snapshot) {
	fmt.Fprintf(w, "%s/%s: %s, %s, revision %s\n", orDefault(s.Resource, ResourceAppsV1), s.Name, orDefault(s.PodManagementPolicy, "OrderedReady"), s.Strategy, revisionLine(s))
	if s.Err != "" {
		renderCells(w, s)
		return
	}
	fmt.Fprintf(w, "%s %d/%d updated, %d/%d ready\n", Bar(s.updatedCells(), len(s.Cells)+int(s.MoreMissing)), s.updatedCells(), s.Replicas, s.ReadyReplicas, s.Replicas)
	if line := PartitionLine(s); line != "" {
		fmt.Fprintln(w, line)
	}
	renderCells(w, s)
	if s.Extended != nil {
		renderExtendedState(w, s)
	}
	if s.Failure != "" {
		fmt.Fprintf(w, "failing: %s\n", s.Failure)
	}
	fmt.Fprintln(w, s.Message)
}

func revisionLine(s Snapshot) string {
	if s.CurrentRevision == s.UpdateRevision {
		return orDefault(s.UpdateRevision, "<none yet>")
	}
	return s.CurrentRevision + " -> " + s.UpdateRevision
}

// updatedCells counts ordinals in range whose pod runs the update revision.
func (s Snapshot) updatedCells() int {
	n := 0
	for _, c := range s.Cells {
		if c.Updated && c.Ordinal < s.StartOrdinal+s.Replicas {
			n++
		}
	}
	return n
}

// Bar draws done out of total as [#####.....].
func Bar(done, total int) string {
	filled := 0
	if total > 0 {
		filled = min(done, total) * barWidth / total
	}
	return "[" + strings.Repeat("#", filled) + strings.Repeat(".", barWidth-filled) + "]"
}

// PartitionLine explains which ordinals the rolling update may touch.
func PartitionLine(s Snapshot) string {
	if s.Partition == nil {
		return ""
	}
	p, last := *s.Partition, s.StartOrdinal+s.Replicas-1
	var reach string
	switch {
	case p <= 0:
		reach = "every ordinal gets the update"
	case p >= s.Replicas:
		reach = "no ordinal gets the update"
	default:
		reach = fmt.Sprintf("%s the update, %s revision %s", ordinalsVerb(s.StartOrdinal+p, last, "get"),
			ordinalsVerb(s.StartOrdinal, s.StartOrdinal+p-1, "keep"), s.CurrentRevision)
	}
	line := fmt.Sprintf("partition %d: %s", p, reach)
	if s.PausedPartition != "" {
		line += fmt.Sprintf(" (paused; resume restores partition %s)", s.PausedPartition)
	}
	return line
}

// ordinalsVerb is "ordinal 2 gets" or "ordinals 0-1 get".
func ordinalsVerb(from, to int32, verb string) string {
	if from == to {
		return fmt.Sprintf("ordinal %d %ss", from, verb)
	}
	return fmt.Sprintf("ordinals %d-%d %s", from, to, verb)
}

func span(from, to int32) string {
	if from == to {
		return fmt.Sprint(from)
	}
	return fmt.Sprintf("%d-%d", from, to)
}

func renderCells(w io.Writer, s Snapshot) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, c := range s.Cells {
		mark := " "
		if c.Updated {
			mark = "*"
		}
		state := c.State
		if c.Reason != "" {
			state += " (" + c.Reason + ")"
		}
		if c.Group != "" {
			state += "\toverride " + c.Group
		}
		if c.RoleProbe != "" {
			state += "\t" + c.RoleProbe
		}
		fmt.Fprintf(tw, "  %s %s\t%s\t%s\n", mark, c.Pod, orDefault(c.Revision, "-"), state)
	}
	_ = tw.Flush()
	if s.MoreMissing > 0 {
		fmt.Fprintf(w, "  … and %d more ordinals without a pod\n", s.MoreMissing)
	}
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
