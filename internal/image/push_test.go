package image_test

import (
	"io"
	"log"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// The built layout goes to a registry as it is, under the digest the
// build printed, the way `crane push bin/image/ordinal-controller REF`
// pushes it (the same library): a cluster pulling by that digest gets this
// image.
func TestTheBuiltImagePushesToARegistryUnderItsDigest(t *testing.T) {
	res := first(t)
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	defer srv.Close()
	p, err := layout.FromPath(res.Layout)
	if err != nil {
		t.Fatal(err)
	}
	top, err := p.ImageIndex()
	if err != nil {
		t.Fatal(err)
	}
	idx, err := top.ImageIndex(res.Digest)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := name.ParseReference(strings.TrimPrefix(srv.URL, "http://") + "/ordinal-sh/ordinal-controller:" + testTag)
	if err != nil {
		t.Fatal(err)
	}
	if err := remote.WriteIndex(ref, idx); err != nil {
		t.Fatalf("pushing %s: %v", ref, err)
	}
	pulled, err := remote.Index(ref.Context().Digest(res.Digest.String()))
	if err != nil {
		t.Fatalf("pulling by digest: %v", err)
	}
	if d := digest(t, pulled); d != res.Digest {
		t.Errorf("pulled %s, built %s", d, res.Digest)
	}
	byTag, err := remote.Head(ref)
	if err != nil || byTag.Digest != res.Digest {
		t.Errorf("the tag %s points at %v (%v), want %s", ref, byTag, err, res.Digest)
	}
}
