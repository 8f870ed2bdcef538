// Package ownership refuses files and directories that another user could
// have written or could swap: the plane trusts the certificate authorities
// of its data directory, and a real node runs the binaries of its tools
// directory as root, so neither may be someone else's to change.
package ownership
