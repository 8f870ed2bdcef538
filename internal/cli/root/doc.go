// Package root assembles the ordinal command tree, runs it and maps its
// errors to documented exit codes.
package root
