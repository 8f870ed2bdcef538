package defaults

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/yaml"
)

// benchmarkSet is testdata/db.yaml: a template of three containers (an
// init container, a database and an exporter) with probes, environment,
// resources, three volumes and a claim template, as written.
func benchmarkSet(b *testing.B) *appsv1.StatefulSet {
	set := &appsv1.StatefulSet{}
	if err := yaml.UnmarshalStrict(statefulSetDocument(b, "testdata/db.yaml"), set); err != nil {
		b.Fatal(err)
	}
	return set
}

// BenchmarkStatefulSet measures StatefulSet on the set as written (each
// iteration on a fresh copy, made with the timer stopped) and on a set
// already defaulted, which is what the controller mostly sees.
func BenchmarkStatefulSet(b *testing.B) {
	written := benchmarkSet(b)
	b.Run("as written", func(b *testing.B) {
		copies := make([]*appsv1.StatefulSet, 256)
		next := len(copies)
		b.ReportAllocs()
		for b.Loop() {
			if next == len(copies) {
				b.StopTimer()
				for i := range copies {
					copies[i] = written.DeepCopy()
				}
				next = 0
				b.StartTimer()
			}
			StatefulSet(copies[next], Options{})
			next++
		}
	})
	b.Run("already defaulted", func(b *testing.B) {
		set := written.DeepCopy()
		StatefulSet(set, Options{})
		b.ReportAllocs()
		for b.Loop() {
			StatefulSet(set, Options{})
		}
	})
}
