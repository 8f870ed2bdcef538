package kubeclient

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Refuse answers req, unsent, with the Forbidden Status the API server
// would send, saying why: what a transport that only reads returns for a
// write.
func Refuse(req *http.Request, why string) (*http.Response, error) {
	if req.Body != nil {
		_ = req.Body.Close()
	}
	body, err := json.Marshal(metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure, Message: fmt.Sprintf("%s %s refused: %s", req.Method, req.URL.Path, why),
		Reason: metav1.StatusReasonForbidden, Code: http.StatusForbidden,
	})
	if err != nil {
		return nil, err
	}
	return &http.Response{
		Status: "403 Forbidden", StatusCode: http.StatusForbidden, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{"Content-Type": []string{"application/json"}},
		Body:   io.NopCloser(bytes.NewReader(body)), ContentLength: int64(len(body)), Request: req,
	}, nil
}
