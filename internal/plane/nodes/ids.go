package nodes

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/types"
)

// imageTag matches an image reference's tag: the last ":…" with no "/" or
// "@" after it.
var imageTag = regexp.MustCompile(`:[^:/@]*$`)

// ImageID is the image ID the simulated nodes report for image, in a
// container runtime's form repository@sha256:digest. The digest is that of
// the reference itself, so a changed image has a new ID and the same image
// always has the same one. A reference that already names a digest is its
// own ID. pod-stages.yaml computes the same value.
func ImageID(image string) string {
	if strings.Contains(image, "@") {
		return image
	}
	sum := sha256.Sum256([]byte(image))
	return imageTag.ReplaceAllString(image, "") + "@sha256:" + hex.EncodeToString(sum[:])
}

// ContainerID is the ID the simulated nodes give the instance of container
// name in pod uid that follows restarts earlier ones, in a
// container runtime's form: every restart has a new ID. pod-stages.yaml
// computes the same value for the first instance.
func ContainerID(uid types.UID, name string, restarts int32) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "%s/%s/%d", uid, name, restarts))
	return "containerd://" + hex.EncodeToString(sum[:])
}
