package controller

import (
	"context"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes/fake"
)

func TestRunRefusesBadOptionsByName(t *testing.T) {
	client := fake.NewClientset()
	for _, tc := range []struct {
		opts Options
		want string
	}{
		{Options{Workers: 0}, "workers must be at least 1"},
		{Options{Workers: 1, StatusHold: -time.Second}, "status hold must not be negative"},
	} {
		err := Run(context.Background(), client, tc.opts)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want one saying %q", tc.opts, err, tc.want)
		}
	}
}
