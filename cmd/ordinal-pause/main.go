// Command ordinal-pause is the sandbox ("pause") container of a real node
// in `ordinal up --real-node`: it holds a pod's namespaces open and does
// nothing else. It exits at SIGINT or SIGTERM, and reaps the children that a
// shared process namespace leaves to it, as the Kubernetes pause container
// does. The image is built here because no registry is reachable.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGCHLD)
	for sig := range sigs {
		if sig != syscall.SIGCHLD {
			os.Exit(0)
		}
		reap()
	}
}

// reap collects every exited child without blocking.
func reap() {
	for {
		var status syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &status, syscall.WNOHANG, nil)
		if pid <= 0 || err != nil {
			return
		}
	}
}
