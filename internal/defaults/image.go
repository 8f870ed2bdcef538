package defaults

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// Image references follow the grammar container registries and the API
// server parse them with:
//
//	reference := name [":" tag] ["@" digest]
//	name      := [host "/"] path
//	host      := (label ("." label)* | "[" ipv6 "]") [":" port]
//	path      := component ("/" component)*
//	component := [a-z0-9]+ (("." | "_" | "__" | "-"+) [a-z0-9]+)*
//	tag       := [A-Za-z0-9_] [A-Za-z0-9_.-]{0,127}
//	digest    := ("sha256" | "sha384" | "sha512") ":" lowercase hex of the
//	             algorithm's length
//
// A path may be at most 255 bytes. The parser below is hand-written rather
// than a regular expression because it runs for every container without a
// pull policy, on the controller's hot path. It checks a tag only for
// being empty: any tag but "latest" gives IfNotPresent, valid or not, and
// "latest" is valid.

// maxRepoPath is the longest repository path (the name without its
// registry host) a reference may have.
const maxRepoPath = 255

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
// reports whether the reference is valid (for a tag, see above).
func parseReference(image string) (tag, digest string, ok bool) {
	if len(image) == 64 && isLowerHex(image) {
		return "", "", false // a bare image ID is not a name
	}
	host, rest := splitRegistry(image)
	name, digest, hasDigest := strings.Cut(host+"/"+rest, "@")
	if hasDigest && !validDigest(digest) {
		return "", "", false
	}
	if i := strings.LastIndexByte(name, ':'); i > strings.LastIndexByte(name, '/') {
		name, tag = name[:i], name[i+1:]
		if tag == "" {
			return "", "", false
		}
	}
	path, ok := repositoryPath(name)
	if !ok || len(path) > maxRepoPath {
		return "", "", false
	}
	return tag, digest, true
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

// repositoryPath returns name without its registry host and whether name
// is valid. A first element that is not a valid host belongs to the path.
func repositoryPath(name string) (string, bool) {
	first, rest, _ := strings.Cut(name, "/")
	if validHost(first) && validPath(rest) {
		return rest, true
	}
	return name, validPath(name)
}

// validHost reports whether h is a domain name or bracketed IPv6 address,
// with an optional numeric port.
func validHost(h string) bool {
	if strings.HasPrefix(h, "[") {
		end := strings.IndexByte(h, ']')
		if end < 2 || strings.Trim(h[1:end], "0123456789abcdefABCDEF:") != "" {
			return false
		}
		return validPort(h[end+1:])
	}
	domain, port, hasPort := strings.Cut(h, ":")
	if hasPort && !validPort(":"+port) {
		return false
	}
	for label := range strings.SplitSeq(domain, ".") {
		if !validLabel(label) {
			return false
		}
	}
	return true
}

// validPort reports whether p is empty or a colon and one or more digits.
func validPort(p string) bool {
	return p == "" || len(p) > 1 && p[0] == ':' && strings.Trim(p[1:], "0123456789") == ""
}

// validLabel reports whether l is a domain label: letters, digits and
// inner hyphens.
func validLabel(l string) bool {
	if l == "" || l[0] == '-' || l[len(l)-1] == '-' {
		return false
	}
	for i := range len(l) {
		if !isAlnum(l[i]) && l[i] != '-' {
			return false
		}
	}
	return true
}

// validPath reports whether p is one or more path components joined by
// slashes.
func validPath(p string) bool {
	for component := range strings.SplitSeq(p, "/") {
		if !validComponent(component) {
			return false
		}
	}
	return true
}

// validComponent reports whether c is runs of lowercase letters and digits
// joined by ".", "_", "__" or any number of "-".
func validComponent(c string) bool {
	i := 0
	for {
		start := i
		for i < len(c) && (isDigit(c[i]) || 'a' <= c[i] && c[i] <= 'z') {
			i++
		}
		switch {
		case i == start:
			return false
		case i == len(c):
			return true
		case strings.HasPrefix(c[i:], "__"):
			i += 2
		case c[i] == '.' || c[i] == '_':
			i++
		case c[i] == '-':
			for i < len(c) && c[i] == '-' {
				i++
			}
		default:
			return false
		}
	}
}

// digestHexLen is the hex length of each digest algorithm a reference may
// name; any other algorithm makes the reference invalid.
var digestHexLen = map[string]int{"sha256": 64, "sha384": 96, "sha512": 128}

// validDigest reports whether d names a known algorithm with a lowercase
// hex value of exactly that algorithm's length.
func validDigest(d string) bool {
	algorithm, value, _ := strings.Cut(d, ":")
	n, known := digestHexLen[algorithm]
	return known && len(value) == n && isLowerHex(value)
}

// isLowerHex reports whether s is lowercase hex digits only.
func isLowerHex(s string) bool {
	for i := range len(s) {
		if !isDigit(s[i]) && (s[i] < 'a' || s[i] > 'f') {
			return false
		}
	}
	return true
}

// isAlnum reports whether b is an ASCII letter or digit.
func isAlnum(b byte) bool {
	return isDigit(b) || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z'
}

// isDigit reports whether b is an ASCII digit.
func isDigit(b byte) bool {
	return '0' <= b && b <= '9'
}
