package plane_test

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every socket this process listens on — the API server, etcd's client and
// peer ports and anything else the plane starts in it — is bound to a
// loopback address, read from the kernel's socket tables.
func TestEverySocketThePlaneListensOnIsLoopback(t *testing.T) {
	inodes := map[string]bool{}
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	for _, fd := range fds {
		target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name()))
		if err == nil && strings.HasPrefix(target, "socket:[") {
			inodes[strings.TrimSuffix(strings.TrimPrefix(target, "socket:["), "]")] = true
		}
	}
	listening := 0
	for _, table := range []string{"/proc/self/net/tcp", "/proc/self/net/tcp6"} {
		f, err := os.Open(table)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		sc.Scan() // header
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) < 10 || fields[3] != "0A" || !inodes[fields[9]] { // 0A: LISTEN
				continue
			}
			listening++
			addr := fields[1][:strings.IndexByte(fields[1], ':')]
			switch addr {
			case "0100007F", "00000000000000000000000001000000": // 127.0.0.1, ::1
			default:
				t.Errorf("a socket listens on %s (%s, inode %s), not loopback", fields[1], table, fields[9])
			}
		}
		f.Close()
	}
	t.Logf("%d listening sockets, all on loopback", listening)
	// The API server, etcd client and etcd peer at least.
	if listening < 3 {
		t.Errorf("found %d listening sockets of this process, want at least 3", listening)
	}
}
