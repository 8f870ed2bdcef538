package defaults

import (
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// The image reference grammar of the container registries (the one kubelet
// and the API server parse with): an optional registry host, a lowercase
// repository path, an optional tag and an optional digest.
const (
	hostLabel     = `(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])`
	registryHost  = `(?:` + hostLabel + `(?:\.` + hostLabel + `)*|\[[a-fA-F0-9:]+\])(?::[0-9]+)?`
	pathComponent = `[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*`
	repoPath      = pathComponent + `(?:/` + pathComponent + `)*`
	imageTag      = `[\w][\w.-]{0,127}`
	imageDigest   = `[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[[:xdigit:]]{32,}`
)

var (
	referencePattern = regexp.MustCompile(`^((?:` + registryHost + `/)?` + repoPath + `)` +
		`(?::(` + imageTag + `))?(?:@(` + imageDigest + `))?$`)
	hostPattern     = regexp.MustCompile(`^` + registryHost + `$`)
	bareIDPattern   = regexp.MustCompile(`^[a-f0-9]{64}$`)
	lowerHexPattern = regexp.MustCompile(`^[a-f0-9]*$`)
)

// maxRepoPath is the longest repository path (the name without its
// registry host) a reference may have.
const maxRepoPath = 255

// digestHexLen is the hex length of each digest algorithm a registry
// reference may name; any other algorithm makes the reference invalid.
var digestHexLen = map[string]int{"sha256": 64, "sha384": 96, "sha512": 128}

// pullPolicy returns the pull policy the API server gives an image without
// one: Always for a valid reference tagged "latest" or carrying neither tag
// nor digest (the registry then serves "latest"), IfNotPresent for every
// other reference, including one that does not parse.
func pullPolicy(image string) corev1.PullPolicy {
	tag, digest, ok := parseReference(image)
	if ok && (tag == "latest" || tag == "" && digest == "") {
		return corev1.PullAlways
	}
	return corev1.PullIfNotPresent
}

// parseReference splits image into its tag and digest after normalising it
// the way Docker Hub names are ("nginx" is docker.io/library/nginx), and
// reports whether the whole reference is valid.
func parseReference(image string) (tag, digest string, ok bool) {
	if bareIDPattern.MatchString(image) {
		return "", "", false // a bare image ID is not a name
	}
	host, rest := splitRegistry(image)
	m := referencePattern.FindStringSubmatch(host + "/" + rest)
	if m == nil || len(repositoryPath(m[1])) > maxRepoPath {
		return "", "", false
	}
	if m[3] != "" && !validDigest(m[3]) {
		return "", "", false
	}
	return m[2], m[3], true
}

// splitRegistry returns the registry host of image and the rest. The first
// path element is a host only if it looks like one (a dot, a colon, an
// upper-case letter, or "localhost"); otherwise the image lives on Docker
// Hub, whose single-element names are in the "library" namespace.
func splitRegistry(image string) (host, rest string) {
	first, after, found := strings.Cut(image, "/")
	switch {
	case !found:
		host, rest = "docker.io", image
	case first == "index.docker.io":
		host, rest = "docker.io", after
	case first == "localhost", strings.ContainsAny(first, ".:"), strings.ToLower(first) != first:
		host, rest = first, after
	default:
		host, rest = "docker.io", image
	}
	if host == "docker.io" && !strings.Contains(rest, "/") {
		rest = "library/" + rest
	}
	return host, rest
}

// repositoryPath returns name without its registry host. A first element
// that is not a valid host belongs to the path.
func repositoryPath(name string) string {
	first, after, _ := strings.Cut(name, "/")
	if hostPattern.MatchString(first) {
		return after
	}
	return name
}

// validDigest reports whether d names a known algorithm with a lowercase
// hex value of exactly that algorithm's length.
func validDigest(d string) bool {
	algorithm, value, _ := strings.Cut(d, ":")
	n, known := digestHexLen[algorithm]
	return known && len(value) == n && lowerHexPattern.MatchString(value)
}
