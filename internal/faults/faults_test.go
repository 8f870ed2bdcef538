package faults

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestFaultsAreInjectedAtTheConfiguredRate(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("{}")) }))
	defer srv.Close()
	inj := Wrap(Config{Rate: 0.2, Seed: 7, MaxDelay: 1})(http.DefaultTransport).(*Injector)
	const n = 1000
	bad := 0
	for i := 0; i < n; i++ {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/api/v1/pods", nil)
		resp, err := inj.RoundTrip(req)
		if err != nil || resp.StatusCode != http.StatusOK {
			bad++
		}
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
		}
	}
	if got := inj.Count(); got < n/10 || got > n*3/10 {
		t.Errorf("injected %d faults in %d requests at rate 0.2", got, n)
	}
	if bad == 0 || int64(bad) > inj.Count() {
		t.Errorf("%d failed requests for %d injected faults", bad, inj.Count())
	}
}

func TestZeroRateInjectsNothing(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	defer srv.Close()
	inj := Wrap(Config{Rate: 0, Seed: 1})(http.DefaultTransport).(*Injector)
	for i := 0; i < 100; i++ {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/api/v1/pods?watch=true", nil)
		resp, err := inj.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
	}
	if inj.Count() != 0 {
		t.Errorf("rate 0 injected %d faults", inj.Count())
	}
}
