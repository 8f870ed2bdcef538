// Package setkind names the kinds of StatefulSet Ordinal controls,
// apps/v1's and the extended apps.ordinal.dev/v1alpha1, and is the one
// place that tells them apart: by a set's type (an extended set's apps/v1
// view carries the extended kind's), by an owner reference, and by a
// work-queue key, which it also makes. The controller, setops and migrate
// ask it; each kind's facts are one row of one table, and a Kind without
// a row fails loudly wherever it is used.
package setkind
