package configrev

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCompareKeysListsAddedRemovedAndChangedKeys(t *testing.T) {
	a := Data{Kind: ConfigMap, Text: map[string]string{"same": "1", "gone": "2", "edited": "old"}}
	b := Data{Kind: ConfigMap, Text: map[string]string{"same": "1", "new": "3", "edited": "new"}}
	got := CompareKeys(ConfigMap, Side{Hashes: a.KeyHashes(), Values: a.Text}, Side{Hashes: b.KeyHashes(), Values: b.Text})
	want := []KeyChange{
		{Key: "edited", Change: "changed", HashA: valueHash("old"), HashB: valueHash("new"), ValueA: "old", ValueB: "new"},
		{Key: "gone", Change: "removed", HashA: valueHash("2"), ValueA: "2"},
		{Key: "new", Change: "added", HashB: valueHash("3"), ValueB: "3"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
}

func TestASecretsChangesShowKeysAndHashesAndNeverValues(t *testing.T) {
	const old, cur = "hunter2-old", "hunter2-new"
	a := Side{Hashes: map[string]string{"password": valueHash(old)}, Values: map[string]string{"password": old}}
	b := Side{Hashes: map[string]string{"password": valueHash(cur)}, Values: map[string]string{"password": cur}}
	changes := []ObjectChange{{Kind: Secret, Name: "db", CopyA: "db-1", CopyB: "db-2", Keys: CompareKeys(Secret, a, b)}}
	var out bytes.Buffer
	Render(&out, changes, func(w io.Writer, x, y string) { fmt.Fprintf(w, "%s|%s\n", x, y) })
	text := out.String()
	if strings.Contains(text, old) || strings.Contains(text, cur) {
		t.Errorf("a Secret's value is shown:\n%s", text)
	}
	if !strings.Contains(text, "~ password (sha256 "+valueHash(old)+" -> "+valueHash(cur)+")") || !strings.Contains(text, "Secret db: db-1 -> db-2") {
		t.Errorf("want the key and its hashes:\n%s", text)
	}
}

func TestAConfigMapsChangesShowTheValues(t *testing.T) {
	a := Side{Hashes: map[string]string{"k": valueHash("a")}, Values: map[string]string{"k": "a"}}
	changes := []ObjectChange{{Kind: ConfigMap, Name: "app", CopyA: "app-1", Keys: CompareKeys(ConfigMap, a, Side{})}}
	var out bytes.Buffer
	Render(&out, changes, func(w io.Writer, x, y string) { fmt.Fprintf(w, "    %q -> %q\n", x, y) })
	want := "ConfigMap app: app-1 -> (none)\n  - k\n    \"a\" -> \"\"\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}
