// Package configrev puts the data of the ConfigMaps and Secrets an
// extended set's pod template reads into the set's revisions: it finds
// the references in a template, hashes an object's data, names and builds
// the immutable copy a revision's pods read instead, and rewrites the
// template to read the copies. Everything here is pure; the controller
// reads the objects and writes the copies.
package configrev
