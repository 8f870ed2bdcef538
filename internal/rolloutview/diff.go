package rolloutview

import (
	"fmt"
	"io"
	"strings"
)

// diffContext is how many unchanged lines surround each change, as diff -u.
const diffContext = 3

// op is one line of an edit script.
type op struct {
	kind byte // ' ', '-' or '+'
	text string
}

// Diff writes a unified diff of a and b, split into lines, with the given
// file labels. It writes nothing when they are equal. Templates are a few
// hundred lines at most, so the quadratic LCS is fine.
func Diff(w io.Writer, labelA, labelB, a, b string) {
	ops := editScript(lines(a), lines(b))
	if !changed(ops) {
		return
	}
	fmt.Fprintf(w, "--- %s\n+++ %s\n", labelA, labelB)
	for _, h := range hunks(ops) {
		writeHunk(w, ops, h[0], h[1])
	}
}

func lines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// editScript is a longest-common-subsequence walk over a and b.
func editScript(a, b []string) []op {
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var ops []op
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			ops = append(ops, op{' ', a[i]})
			i, j = i+1, j+1
		case j >= len(b) || (i < len(a) && lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, op{'-', a[i]})
			i++
		default:
			ops = append(ops, op{'+', b[j]})
			j++
		}
	}
	return ops
}

func changed(ops []op) bool {
	for _, o := range ops {
		if o.kind != ' ' {
			return true
		}
	}
	return false
}

// hunks groups changes closer than 2*diffContext lines into [from, to)
// ranges of ops, context included.
func hunks(ops []op) [][2]int {
	var out [][2]int
	for i := 0; i < len(ops); i++ {
		if ops[i].kind == ' ' {
			continue
		}
		from, to := max(i-diffContext, 0), min(i+diffContext+1, len(ops))
		if n := len(out); n > 0 && from <= out[n-1][1] {
			out[n-1][1] = to
		} else {
			out = append(out, [2]int{from, to})
		}
	}
	return out
}

// writeHunk writes ops[from:to] with its @@ header.
func writeHunk(w io.Writer, ops []op, from, to int) {
	lineA, lineB := 1, 1
	for _, o := range ops[:from] {
		lineA, lineB = advance(o, lineA, lineB)
	}
	countA, countB := 0, 0
	for _, o := range ops[from:to] {
		countA, countB = advance(o, countA, countB)
	}
	fmt.Fprintf(w, "@@ -%s +%s @@\n", hunkRange(lineA, countA), hunkRange(lineB, countB))
	for _, o := range ops[from:to] {
		fmt.Fprintf(w, "%c%s\n", o.kind, o.text)
	}
}

func advance(o op, a, b int) (int, int) {
	if o.kind != '+' {
		a++
	}
	if o.kind != '-' {
		b++
	}
	return a, b
}

// hunkRange is diff -u's start,count; an empty range starts one line early.
func hunkRange(start, count int) string {
	if count == 0 {
		start--
	}
	if count == 1 {
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, count)
}
