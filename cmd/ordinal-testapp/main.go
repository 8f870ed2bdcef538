// Command ordinal-testapp is the test application of a real node in
// `ordinal up --real-node`: a static HTTP server whose readiness, exit and
// termination a test commands, which writes a data marker to its volume
// and reports the cgroup limits its container really has. Its image is
// built here (hack/ensure-realnode.sh, or a test with a new tag for an
// image update), since no registry is reachable.
//
//	ordinal-testapp [flags]            serve
//	ordinal-testapp hook --data DIR N  append "N <time>" to DIR/hooks (an exec hook)
//
// HTTP: GET /healthz (always 200), GET /readyz (200 while ready, else 503),
// GET / (JSON: version, pod, start count, marker, cgroup limits),
// POST /unready and POST /ready (readiness on command), POST /exit?code=N
// (exit now), GET /prestop?sleep=D (an httpGet hook: record, then sleep),
// GET /resolve?name=N (the addresses the pod's resolver finds), GET /role
// (the role --role or POST /role?name=R set, for a role probe; 503 after
// POST /role?down=true, until POST /role?down=false), GET /files/NAME (the
// content of file NAME in --files, as the application would read it now:
// what a ConfigMap reload made the kubelet write).
package main

import (
	"fmt"
	"os"
)

// version is stamped by the image build (-X main.version=TAG), so that an
// image update is visible in what the pod answers.
var version = "dev"

func main() {
	if len(os.Args) > 1 && os.Args[1] == "hook" {
		if err := runHook(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "ordinal-testapp hook:", err)
			os.Exit(1)
		}
		return
	}
	if err := serve(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "ordinal-testapp:", err)
		os.Exit(1)
	}
}
