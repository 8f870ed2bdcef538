package configrev

import (
	"encoding/json"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
)

// Record is what a revision says of one object its template reads: the
// object and the copy its pods read.
type Record struct {
	Kind Kind   `json:"kind"`
	Name string `json:"name"`
	Copy string `json:"copy"`
}

// Annotate records on rev the objects its template reads through copies.
func Annotate(rev *appsv1.ControllerRevision, records []Record) error {
	if len(records) == 0 {
		return nil
	}
	data, err := json.Marshal(records)
	if err != nil {
		return fmt.Errorf("encoding the config of revision %s: %w", rev.Name, err)
	}
	if rev.Annotations == nil {
		rev.Annotations = map[string]string{}
	}
	rev.Annotations[v1alpha1.ConfigRefsAnnotation] = string(data)
	return nil
}

// Records returns what rev says of the objects its template reads
// through copies: none for a revision without them.
func Records(rev *appsv1.ControllerRevision) ([]Record, error) {
	raw, ok := rev.Annotations[v1alpha1.ConfigRefsAnnotation]
	if !ok {
		return nil, nil
	}
	var out []Record
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		return nil, fmt.Errorf("reading the config of revision %s: %w", rev.Name, err)
	}
	return out, nil
}
