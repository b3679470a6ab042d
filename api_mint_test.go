package ark

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// minted decodes the ids of a mint answer.
func minted(t *testing.T, got answer) []string {
	t.Helper()
	var res struct{ IDs []string }
	if err := json.Unmarshal([]byte(got.body), &res); err != nil {
		t.Fatalf("%v: %s", err, got.body)
	}
	return res.IDs
}

func TestAPIMint(t *testing.T) {
	s := startAPISite(t, `minter ark:12345/x5 .reeddeedk
		minter ark:12345/x7 .sd`)
	got := s.call("POST", "/mint/ark:/12345/x5", "x5", "")
	ids := minted(t, got)
	if got.status != http.StatusCreated || len(ids) != 1 || !strings.HasPrefix(ids[0], "ark:12345/x5") || len(ids[0]) != len("ark:12345/x5")+8 {
		t.Fatalf("mint one: %d %s", got.status, got.body)
	}
	if r := s.lookup(ids[0]); r == nil || r.Binding.Status != 0 || r.History[0].By != "x5" {
		t.Errorf("a minted name is reserved, unbound: %+v", r)
	}

	got = s.call("POST", "/mint/ark:12345/x5?n=1000", "editor", "")
	if ids := minted(t, got); got.status != http.StatusCreated || len(ids) != 1000 {
		t.Errorf("mint 1000: %d, %d ids", got.status, len(ids))
	}
	for _, n := range []string{"0", "1001", "x"} {
		if got := s.call("POST", "/mint/ark:12345/x5?n="+n, "editor", ""); got.status != http.StatusBadRequest {
			t.Errorf("n=%s: %d %s", n, got.status, got.body)
		}
	}

	// Mint and bind: {id} in the target is the new name.
	got = s.call("POST", "/mint/ark:12345/x5?n=2", "editor", `{"target": "https://repo.example.org/items/{id}", "status": 303}`)
	ids = minted(t, got)
	if got.status != http.StatusCreated || len(ids) != 2 {
		t.Fatalf("mint and bind: %d %s", got.status, got.body)
	}
	for _, id := range ids {
		if got := s.get("/" + id); got.status != 303 || got.location != "https://repo.example.org/items/"+id {
			t.Errorf("resolving %s: %d %q", id, got.status, got.location)
		}
	}
	if got := s.call("POST", "/mint/ark:12345/x5", "editor", `{"target": "https://repo.example.org/{id}", "status": 301}`); got.status != http.StatusBadRequest {
		t.Errorf("mint and bind to a 301: %d %s", got.status, got.body)
	}

	if got := s.call("POST", "/mint/ark:12345/y9", "editor", ""); got.status != http.StatusNotFound || !strings.Contains(got.body, "no minter") {
		t.Errorf("a shoulder without minter: %d %s", got.status, got.body)
	}
	if got := s.call("POST", "/mint/ark:12345/x7", "x5", ""); got.status != http.StatusForbidden {
		t.Errorf("minting out of scope: %d %s", got.status, got.body)
	}
	if got := s.call("POST", "/mint/ark:12345/x7", "reader", ""); got.status != http.StatusForbidden {
		t.Errorf("minting with a read key: %d %s", got.status, got.body)
	}
	// .sd has ten names; the eleventh is refused with the reason.
	got = s.call("POST", "/mint/ark:12345/x7?n=10", "editor", "")
	if ids := minted(t, got); got.status != http.StatusCreated || len(ids) != 10 {
		t.Errorf("the ten names of .sd: %d %s", got.status, got.body)
	}
	if got := s.call("POST", "/mint/ark:12345/x7", "editor", ""); got.status != http.StatusConflict || !strings.Contains(got.body, "no names left") {
		t.Errorf("the eleventh: %d %s", got.status, got.body)
	}
}

func TestAPIConcurrentMintsNeverRepeat(t *testing.T) {
	s := startAPISite(t, `minter ark:12345/x5 .zd
		minter ark:12345/r3 .reeeeek`)
	const clients, each = 50, 100 // 5,000 each for a sequential and a random template
	var mu sync.Mutex
	seen := map[string]bool{}
	var wg sync.WaitGroup
	for i := range 2 * clients {
		shoulder := []string{"ark:12345/x5", "ark:12345/r3"}[i%2]
		wg.Go(func() {
			for range each {
				req, _ := http.NewRequest("POST", s.base+"/api/ark/mint/"+shoulder, nil)
				req.Header.Set("Authorization", "Bearer editor-secret")
				resp, err := client.Do(req)
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
