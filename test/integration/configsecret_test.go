package integration

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"

	"github.com/ordinal-sh/ordinal/api/v1alpha1"
	"github.com/ordinal-sh/ordinal/internal/configrev"
	"github.com/ordinal-sh/ordinal/internal/setops"
)

func writeSecret(t *testing.T, ns, value string) {
	t.Helper()
	secrets := client.CoreV1().Secrets(ns)
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: ns}, Data: map[string][]byte{"password": []byte(value)}}
	cur, err := secrets.Get(context.Background(), "db", metav1.GetOptions{})
	if err == nil {
		cur.Data = s.Data
		_, err = secrets.Update(context.Background(), cur, metav1.UpdateOptions{})
	} else {
		_, err = secrets.Create(context.Background(), s, metav1.CreateOptions{})
	}
	if err != nil {
		t.Fatalf("writing Secret db: %v", err)
	}
}

// notIn fails the test for every object whose JSON holds one of values,
// as written or base64-encoded.
func notIn(t *testing.T, what string, objects any, values ...string) {
	t.Helper()
	raw, err := json.Marshal(objects)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range values {
		for _, form := range []string{v, base64.StdEncoding.EncodeToString([]byte(v))} {
			if bytes.Contains(raw, []byte(form)) {
				t.Errorf("%s hold a Secret's value (%q)", what, form)
			}
		}
	}
}

// A Secret the set names is part of its revisions: a change of its value
// rolls out, history shows the key and its hashes, and the value appears
// in no object the controller writes but the Secret's copies.
func TestASecretRollsOutAndItsValueAppearsNowhereElse(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startOrdinal(t, ns)
	playConfiguredApp(t, ns)
	v1, v2 := "pw-"+rand.String(24), "pw-"+rand.String(24)
	writeConfigMap(t, ns, map[string]string{"valid": "true", "v": "1"})
	writeSecret(t, ns, v1)
	set := configuredSet(t, ns)
	set.Spec.ConfigRevisions.Secrets = []string{"db"}
	set.Spec.Template.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "PASSWORD", ValueFrom: &corev1.EnvVarSource{
		SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "db"}, Key: "password"}}}}
	createExtended(t, set)
	first := waitExtended(t, ns, time.Minute, "3 ready replicas", extendedSettled)
	writeSecret(t, ns, v2)
	waitExtended(t, ns, 2*time.Minute, "the Secret rolled out", func(s *v1alpha1.StatefulSet) error {
		if s.Status.UpdateRevision == first.Status.UpdateRevision {
			return fmt.Errorf("no new revision yet")
		}
		return extendedSettled(s)
	})
	for _, p := range listPods(t, ns) {
		name := p.Spec.Containers[0].Env[0].ValueFrom.SecretKeyRef.Name
		s, err := client.CoreV1().Secrets(ns).Get(context.Background(), name, metav1.GetOptions{})
		if err != nil || !configrev.IsCopyFor(s.Labels, setName) || string(s.Data["password"]) != v2 {
			t.Errorf("pod %s reads Secret %s (%v), want the set's copy of the new value", p.Name, name, err)
		}
	}

	ctx := context.Background()
	sets, err := extendedSets(t, ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	notIn(t, "sets", sets, v1, v2)
	revs, err := client.AppsV1().ControllerRevisions(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	notIn(t, "revisions", revs, v1, v2)
	events, err := client.CoreV1().Events(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	notIn(t, "events", events, v1, v2)
	pods, err := client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	notIn(t, "pods", pods, v1, v2)
	cms, err := client.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	notIn(t, "ConfigMaps", cms, v1, v2)

	target, err := setops.LoadExtended(ctx, client, extendedClient(t), ns, setName)
	if err != nil {
		t.Fatal(err)
	}
	all, err := target.Revisions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	changes, err := target.ConfigDiff(ctx, all, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	configrev.Render(&out, changes, func(w io.Writer, a, b string) { fmt.Fprintf(w, "%s => %s\n", a, b) })
	notIn(t, "the history's diff", out.String(), v1, v2)
	if len(changes) != 1 || changes[0].Kind != configrev.Secret || len(changes[0].Keys) != 1 || changes[0].Keys[0].Key != "password" || changes[0].Keys[0].Change != "changed" {
		t.Errorf("config diff of revisions 1 and 2:\n%s", out.String())
	}
}
