package invariant

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
)

// MarkerFile is the name of the file Markers writes into each volume.
const MarkerFile = ".ordinal-invariant-marker"

// Markers writes a marker file, holding the claim's UID, into the local
// directory of every bound claim's volume (spec.hostPath or spec.local),
// and later checks RuleVolumeData: a claim that still exists as the same
// object is still bound to the same volume and its marker is intact. It
// stands for a database's data: a retained claim must keep it across pod
// deletions, scale-down and scale-up, controller restarts and node loss.
type Markers struct {
	client kubernetes.Interface
	ns     string
	mu     sync.Mutex
	marked map[types.UID]marker
}

type marker struct {
	claim, volume, dir string
}

// NewMarkers returns markers for namespace ns.
func NewMarkers(client kubernetes.Interface, ns string) *Markers {
	return &Markers{client: client, ns: ns, marked: map[types.UID]marker{}}
}

// Count returns how many claims have a marker.
func (m *Markers) Count() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.marked)
}

// Mark writes markers into the volumes of bound claims that have none yet.
func (m *Markers) Mark(ctx context.Context) error {
	claims, err := m.client.CoreV1().PersistentVolumeClaims(m.ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("listing claims: %w", err)
	}
	for _, c := range claims.Items {
		if c.Status.Phase != corev1.ClaimBound || c.Spec.VolumeName == "" || c.DeletionTimestamp != nil || m.has(c.UID) {
			continue
		}
		dir, err := m.volumeDir(ctx, c.Spec.VolumeName)
		if err != nil || dir == "" {
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, MarkerFile), []byte(c.UID), 0o644); err != nil {
			return fmt.Errorf("writing marker for claim %s: %w", c.Name, err)
		}
		m.mu.Lock()
		m.marked[c.UID] = marker{claim: c.Name, volume: c.Spec.VolumeName, dir: dir}
		m.mu.Unlock()
	}
	return nil
}

func (m *Markers) has(uid types.UID) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.marked[uid]
	return ok
}

func (m *Markers) volumeDir(ctx context.Context, name string) (string, error) {
	pv, err := m.client.CoreV1().PersistentVolumes().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return "", err
	}
	switch {
	case pv.Spec.HostPath != nil:
		return pv.Spec.HostPath.Path, nil
	case pv.Spec.Local != nil:
		return pv.Spec.Local.Path, nil
	}
	return "", nil
}

// Verify checks RuleVolumeData for every marked claim.
func (m *Markers) Verify(ctx context.Context) ([]Violation, error) {
	claims, err := m.client.CoreV1().PersistentVolumeClaims(m.ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("listing claims: %w", err)
	}
	byUID := map[types.UID]*corev1.PersistentVolumeClaim{}
	for i := range claims.Items {
		byUID[claims.Items[i].UID] = &claims.Items[i]
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Violation
	for uid, mk := range m.marked {
		c := byUID[uid]
		if c == nil {
			continue // deleted: RuleClaimDeleted judges that
		}
		bad := func(format string, args ...any) {
			out = append(out, Violation{Rule: RuleVolumeData, Object: key(m.ns, mk.claim), Time: time.Now(), Message: fmt.Sprintf(format, args...)})
		}
		if c.Spec.VolumeName != mk.volume {
			bad("claim now bound to %q, was %q when marked", c.Spec.VolumeName, mk.volume)
			continue
		}
		data, err := os.ReadFile(filepath.Join(mk.dir, MarkerFile))
		switch {
		case err != nil:
			bad("marker in volume %s (%s) is gone: %v", mk.volume, mk.dir, err)
		case strings.TrimSpace(string(data)) != string(uid):
			bad("marker in volume %s holds %q, want the claim's uid %s", mk.volume, data, uid)
		}
	}
	return out, nil
}
