package nodes

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// podPath matches the URL of one pod.
var podPath = regexp.MustCompile(`^/api/v1/namespaces/([^/]+)/pods/([^/]+)$`)

// deleteGuard makes the simulated kubelet's pod deletions safe. kwok deletes
// a terminated pod by name only, with no precondition and sometimes twice;
// when a controller has already created a replacement of the same name
// (as a StatefulSet controller does at once), that second delete would kill
// the new pod. The guard turns each pod DELETE into "delete exactly the pod
// that is terminating": it reads the pod first, refuses when that pod is not
// being deleted, and adds its UID as a precondition otherwise.
type deleteGuard struct{ next http.RoundTripper }

func (g deleteGuard) RoundTrip(req *http.Request) (*http.Response, error) {
	m := podPath.FindStringSubmatch(req.URL.Path)
	if req.Method != http.MethodDelete || m == nil {
		return g.next.RoundTrip(req)
	}
	pod, resp, err := g.get(req)
	if err != nil || resp != nil {
		return resp, err
	}
	if pod.DeletionTimestamp == nil {
		return refusal(req, fmt.Sprintf("pod %s/%s is not terminating; not deleting it", m[1], m[2])), nil
	}
	// The request body may be protobuf; the simulated kubelet only ever
	// confirms a deletion (grace period 0), so the options are rebuilt.
	if req.Body != nil {
		_ = req.Body.Close()
	}
	opts := metav1.DeleteOptions{GracePeriodSeconds: new(int64), Preconditions: &metav1.Preconditions{UID: &pod.UID}}
	body, err := json.Marshal(opts)
	if err != nil {
		return nil, err
	}
	out := req.Clone(req.Context())
	out.Body = io.NopCloser(bytes.NewReader(body))
	out.ContentLength = int64(len(body))
	out.Header.Set("Content-Type", "application/json")
	out.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	return g.next.RoundTrip(out)
}

// get reads the pod the DELETE names. A non-200 answer is returned as the
// DELETE's own response (e.g. 404 when it is already gone).
func (g deleteGuard) get(req *http.Request) (*corev1.Pod, *http.Response, error) {
	get, err := http.NewRequestWithContext(req.Context(), http.MethodGet, req.URL.String(), nil)
	if err != nil {
		return nil, nil, err
	}
	get.Header = req.Header.Clone()
	get.Header.Set("Accept", "application/json")
	resp, err := g.next.RoundTrip(get)
	if err != nil {
		return nil, nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, resp, nil
	}
	defer resp.Body.Close()
	var pod corev1.Pod
	if err := json.NewDecoder(resp.Body).Decode(&pod); err != nil {
		return nil, nil, fmt.Errorf("decoding pod: %w", err)
	}
	return &pod, nil, nil
}

// refusal answers like the API server would for a failed precondition.
func refusal(req *http.Request, msg string) *http.Response {
	status := metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusFailure,
		Message: msg, Reason: metav1.StatusReasonConflict, Code: http.StatusConflict}
	body, _ := json.Marshal(status)
	return &http.Response{StatusCode: http.StatusConflict, Status: "409 Conflict", Request: req,
		Header: http.Header{"Content-Type": []string{"application/json"}}, Body: io.NopCloser(strings.NewReader(string(body))),
		ContentLength: int64(len(body)), Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1}
}
