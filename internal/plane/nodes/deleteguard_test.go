package nodes

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// fakeAPI serves one pod and records the DELETE it receives.
type fakeAPI struct {
	pod     *corev1.Pod
	deleted *metav1.DeleteOptions
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case f.pod == nil:
		http.Error(w, `{"kind":"Status","code":404}`, http.StatusNotFound)
	case r.Method == http.MethodGet:
		_ = json.NewEncoder(w).Encode(f.pod)
	case r.Method == http.MethodDelete:
		raw, _ := io.ReadAll(r.Body)
		if r.Header.Get("Content-Type") != "application/json" {
			http.Error(w, "not json", http.StatusUnsupportedMediaType)
			return
		}
		f.deleted = &metav1.DeleteOptions{}
		_ = json.Unmarshal(raw, f.deleted)
		w.WriteHeader(http.StatusOK)
	}
}

func TestTheDeleteGuardDeletesOnlyTheTerminatingPod(t *testing.T) {
	now := metav1.Now()
	cases := []struct {
		name       string
		pod        *corev1.Pod
		wantStatus int
		wantUID    types.UID
	}{
		{"a terminating pod is deleted with its UID as precondition", &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-0", UID: "old", DeletionTimestamp: &now}}, http.StatusOK, "old"},
		{"a replacement that is not terminating is refused", &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-0", UID: "new"}}, http.StatusConflict, ""},
		{"a pod that is gone gives the API's 404", nil, http.StatusNotFound, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			api := &fakeAPI{pod: c.pod}
			srv := httptest.NewServer(api)
			defer srv.Close()
			// kwok sends protobuf; the guard must not need to read it.
			req, _ := http.NewRequest(http.MethodDelete, srv.URL+"/api/v1/namespaces/ns/pods/web-0", strings.NewReader("k8s\x00protobuf"))
			req.Header.Set("Content-Type", "application/vnd.kubernetes.protobuf")
			resp, err := deleteGuard{next: http.DefaultTransport}.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != c.wantStatus {
				t.Fatalf("status %d, want %d", resp.StatusCode, c.wantStatus)
			}
			switch {
			case c.wantUID == "" && api.deleted != nil:
				t.Errorf("the pod was deleted: %+v", api.deleted)
			case c.wantUID != "" && (api.deleted == nil || api.deleted.Preconditions == nil || *api.deleted.Preconditions.UID != c.wantUID ||
				api.deleted.GracePeriodSeconds == nil || *api.deleted.GracePeriodSeconds != 0):
				t.Errorf("delete options %+v, want UID precondition %s", api.deleted, c.wantUID)
			}
		})
	}
}
