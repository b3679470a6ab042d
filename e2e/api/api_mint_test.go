package api

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
)

func TestAPIMint(t *testing.T) {
	s := caddytest.StartAPISite(t, `minter ark:12345/x5 .reeddeedk
		minter ark:12345/x7 .sd`)
	got := s.Call("POST", "/mint/ark:/12345/x5", "x5", "")
	ids := caddytest.Minted(t, got)
	if got.Status != http.StatusCreated || len(ids) != 1 || !strings.HasPrefix(ids[0], "ark:12345/x5") || len(ids[0]) != len("ark:12345/x5")+8 {
		t.Fatalf("mint one: %d %s", got.Status, got.Body)
	}
	if r := s.Lookup(ids[0]); r == nil || r.Binding.Status != 0 || r.History[0].By != "x5" {
		t.Errorf("a minted name is reserved, unbound: %+v", r)
	}

	got = s.Call("POST", "/mint/ark:12345/x5?n=1000", "editor", "")
	if ids := caddytest.Minted(t, got); got.Status != http.StatusCreated || len(ids) != 1000 {
		t.Errorf("mint 1000: %d, %d ids", got.Status, len(ids))
	}
	for _, n := range []string{"0", "1001", "x"} {
		if got := s.Call("POST", "/mint/ark:12345/x5?n="+n, "editor", ""); got.Status != http.StatusBadRequest {
			t.Errorf("n=%s: %d %s", n, got.Status, got.Body)
		}
	}

	// Mint and bind: {id} in the target is the new name.
	got = s.Call("POST", "/mint/ark:12345/x5?n=2", "editor", `{"target": "https://repo.example.org/items/{id}", "status": 303}`)
	ids = caddytest.Minted(t, got)
	if got.Status != http.StatusCreated || len(ids) != 2 {
		t.Fatalf("mint and bind: %d %s", got.Status, got.Body)
	}
	for _, id := range ids {
		if got := s.Get("/" + id); got.Status != 303 || got.Location != "https://repo.example.org/items/"+id {
			t.Errorf("resolving %s: %d %q", id, got.Status, got.Location)
		}
	}
	if got := s.Call("POST", "/mint/ark:12345/x5", "editor", `{"target": "https://repo.example.org/{id}", "status": 301}`); got.Status != http.StatusBadRequest {
		t.Errorf("mint and bind to a 301: %d %s", got.Status, got.Body)
	}

	if got := s.Call("POST", "/mint/ark:12345/y9", "editor", ""); got.Status != http.StatusNotFound || !strings.Contains(got.Body, "no minter") {
		t.Errorf("a shoulder without minter: %d %s", got.Status, got.Body)
	}
	if got := s.Call("POST", "/mint/ark:12345/x7", "x5", ""); got.Status != http.StatusForbidden {
		t.Errorf("minting out of scope: %d %s", got.Status, got.Body)
	}
	if got := s.Call("POST", "/mint/ark:12345/x7", "reader", ""); got.Status != http.StatusForbidden {
		t.Errorf("minting with a read key: %d %s", got.Status, got.Body)
	}
	// .sd has ten names; the eleventh is refused with the reason.
	got = s.Call("POST", "/mint/ark:12345/x7?n=10", "editor", "")
	if ids := caddytest.Minted(t, got); got.Status != http.StatusCreated || len(ids) != 10 {
		t.Errorf("the ten names of .sd: %d %s", got.Status, got.Body)
	}
	if got := s.Call("POST", "/mint/ark:12345/x7", "editor", ""); got.Status != http.StatusConflict || !strings.Contains(got.Body, "no names left") {
		t.Errorf("the eleventh: %d %s", got.Status, got.Body)
	}
}

func TestAPIConcurrentMintsNeverRepeat(t *testing.T) {
	s := caddytest.StartAPISite(t, `minter ark:12345/x5 .zd
		minter ark:12345/r3 .reeeeek`)
	const clients, each = 50, 100 // 5,000 each for a sequential and a random template
	var mu sync.Mutex
	seen := map[string]bool{}
	var wg sync.WaitGroup
	for i := range 2 * clients {
		shoulder := []string{"ark:12345/x5", "ark:12345/r3"}[i%2]
		wg.Go(func() {
			for range each {
				req, _ := http.NewRequest("POST", s.Base+"/api/ark/mint/"+shoulder, nil)
				req.Header.Set("Authorization", "Bearer editor-secret")
				resp, err := caddytest.Client.Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				var res struct{ IDs []string }
				err = json.NewDecoder(resp.Body).Decode(&res)
				resp.Body.Close()
				if err != nil || resp.StatusCode != http.StatusCreated || len(res.IDs) != 1 {
					t.Errorf("mint under %s: %d %v", shoulder, resp.StatusCode, err)
					return
				}
				mu.Lock()
				if seen[res.IDs[0]] {
					t.Errorf("%s minted twice", res.IDs[0])
				}
				seen[res.IDs[0]] = true
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(seen) != 2*clients*each {
		t.Fatalf("%d distinct names from %d mints", len(seen), 2*clients*each)
	}
	// Sequential: exactly the first 5,000 names, each stored.
	for i := range clients * each {
		if id := "ark:12345/x5" + strconv.Itoa(i); !seen[id] {
			t.Fatalf("%s was not minted", id)
		}
	}
}
