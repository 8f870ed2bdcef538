package controller

import (
	"testing"
)

func TestExtendedKeysAreTheirOwn(t *testing.T) {
	ns, name, ok := splitExtendedKey(extendedKey("shop", "web"))
	if !ok || ns != "shop" || name != "web" {
		t.Errorf("round trip gave %q %q %v", ns, name, ok)
	}
	if _, _, ok := splitExtendedKey("shop/web"); ok {
		t.Error("an apps/v1 key read as an extended one")
	}
}
