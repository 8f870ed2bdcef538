package defaults

import (
	"os"
	"strings"
	"testing"
)

// statefulSetDocument returns the StatefulSet document of a YAML stream.
func statefulSetDocument(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range strings.Split(string(data), "\n---\n") {
		if strings.Contains(doc, "\nkind: StatefulSet\n") {
			return []byte(doc)
		}
	}
	t.Fatalf("%s has no StatefulSet", path)
	return nil
}

// StatefulSetDocument is statefulSetDocument for the package's external
// tests.
var StatefulSetDocument = statefulSetDocument
