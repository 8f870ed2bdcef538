package defaults

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/util/parsers"
)

// upstreamPullPolicy is the API server's rule, through its own image
// parser: Always when the parsed tag is "latest" (which it also is for a
// reference with neither tag nor digest), IfNotPresent otherwise.
func upstreamPullPolicy(image string) corev1.PullPolicy {
	if _, tag, _, _ := parsers.ParseImageName(image); tag == "latest" {
		return corev1.PullAlways
	}
	return corev1.PullIfNotPresent
}

func TestPullPolicy(t *testing.T) {
	always, ifNotPresent := corev1.PullAlways, corev1.PullIfNotPresent
	tests := []struct {
		name  string
		image string
		want  corev1.PullPolicy
	}{
		{"no tag pulls latest, always", "nginx", always},
		{"the latest tag pulls always", "nginx:latest", always},
		{"another tag is pulled if not present", "nginx:1.25", ifNotPresent},
		{"a digest is pulled if not present", "nginx@sha256:" + hex(64), ifNotPresent},
		{"latest with a digest pulls always", "nginx:latest@sha256:" + hex(64), always},
		{"a registry with a port is not a tag", "localhost:5000/app", always},
		{"a registry with a port and a tag", "localhost:5000/app:v1", ifNotPresent},
		{"a bare localhost name is an image", "localhost", always},
		{"an IPv6 registry", "[::1]:5000/app", always},
		{"an IPv6 registry without a port", "[::1]/app", always},
		{"an empty IPv6 address does not parse", "[]:80/app", ifNotPresent},
		{"a port must be a number", "localhost:http/app", ifNotPresent},
		{"a port cannot be empty", "registry.io:/app", ifNotPresent},
		{"a host has one port at most", "host:80:90/app", ifNotPresent},
		{"a host has no empty label", "a..b/app", ifNotPresent},
		{"the legacy Docker Hub host", "index.docker.io/nginx:latest", always},
		{"an upper-case registry host is valid", "Registry.Example/app", always},
		{"an upper-case first element is a host, not a path", "Team/app", always},
		{"a tag is case sensitive", "nginx:LATEST", ifNotPresent},
		{"an upper-case repository does not parse", "Nginx", ifNotPresent},
		{"an upper-case repository with latest does not parse", "Nginx:latest", ifNotPresent},
		{"an empty image does not parse", "", ifNotPresent},
		{"an empty tag does not parse", "nginx:", ifNotPresent},
		{"a tag of 128 characters is valid", "nginx:" + strings.Repeat("t", 128), ifNotPresent},
		{"a bare 64-hex image ID is not a name", hex(64), ifNotPresent},
		{"a short digest does not parse", "nginx:latest@sha256:" + hex(63), ifNotPresent},
		{"a long digest does not parse", "nginx:latest@sha256:" + hex(65), ifNotPresent},
		{"an upper-case digest does not parse", "nginx:latest@sha256:" + strings.ToUpper(hex(64)), ifNotPresent},
		{"an unknown digest algorithm does not parse", "nginx:latest@md5:" + hex(32), ifNotPresent},
		{"a sha512 digest with latest", "nginx:latest@sha512:" + hex(128), always},
		{"a path of 255 characters after library/ is valid", strings.Repeat("n", 247), always},
		{"a path of 256 characters after library/ is too long", strings.Repeat("n", 248), ifNotPresent},
		{"a host that is not a host name is part of the path", "my_host.io/app", always},
		{"triple underscores are not a separator", "a___b", ifNotPresent},
		{"a trailing space does not parse", "nginx ", ifNotPresent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := pullPolicy(tt.image); got != tt.want {
				t.Errorf("pullPolicy(%q) = %s, want %s", tt.image, got, tt.want)
			}
			if up := upstreamPullPolicy(tt.image); up != tt.want {
				t.Errorf("the API server's parser gives %s for %q, the table says %s", up, tt.image, tt.want)
			}
		})
	}
}

// TestPullPolicyMatchesTheAPIServersParser compares the rule with the
// API server's parser on every image the random sets draw from, and on
// every combination of the assembled parts.
func TestPullPolicyMatchesTheAPIServersParser(t *testing.T) {
	images := append([]string(nil), typicalImages...)
	for _, host := range imageHosts {
		for _, path := range imagePaths {
			for _, tag := range imageTags {
				for _, digest := range imageDigests {
					images = append(images, host+path+tag+digest)
				}
			}
		}
	}
	for _, image := range images {
		if got, want := pullPolicy(image), upstreamPullPolicy(image); got != want {
			t.Errorf("pullPolicy(%q) = %s, the API server's parser gives %s", image, got, want)
		}
	}
	t.Logf("%d images compared", len(images))
}
