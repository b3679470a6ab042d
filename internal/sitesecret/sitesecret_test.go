package sitesecret

import (
	"bytes"
	"context"
	"sync"
	"testing"

	"github.com/caddyserver/certmagic"
)

// Nodes starting together on one storage (a real directory) agree on one
// secret, made once, and find it again later; another key is another
// secret.
func TestStoredIsMadeOnce(t *testing.T) {
	st := &certmagic.FileStorage{Path: t.TempDir()}
	ctx := context.Background()
	got := make([][]byte, 8)
	var wg sync.WaitGroup
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, err := Stored(ctx, st, "ark/test/secret")
			if err != nil {
				t.Error(err)
			}
			got[i] = b
		}()
	}
	wg.Wait()
	for _, b := range got {
		if len(b) != 32 || !bytes.Equal(b, got[0]) {
			t.Fatalf("secrets %x", got)
		}
	}
	again, err := Stored(ctx, st, "ark/test/secret")
	if err != nil || !bytes.Equal(again, got[0]) {
		t.Errorf("later: %x %v", again, err)
	}
	other, err := Stored(ctx, st, "ark/other/secret")
	if err != nil || bytes.Equal(other, got[0]) {
		t.Errorf("another key's secret: %x %v", other, err)
	}
}
