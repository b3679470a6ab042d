package api

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/store/bolt"
	"github.com/caddy-ark/caddy-ark/table"
	bbolt "go.etcd.io/bbolt"
)

// TestAPIIfNoneMatchETag: If-Match and If-None-Match are evaluated as RFC
// 9110 13.1 has them, lists and weak tags included, for PUT and withdraw:
// a precondition that fails is 412 and changes nothing, a malformed field
// is 400.
func TestAPIIfNoneMatchETag(t *testing.T) {
	s := caddytest.StartAPISite(t, "")
	if got := s.Call("PUT", "/id/ark:12345/x5inm", "editor", `{"target": "https://repo.example.org/1"}`); got.Status != http.StatusCreated {
		t.Fatalf("create: %d %s", got.Status, got.Body)
	}
	got := s.Call("PUT", "/id/ark:12345/x5inm", "editor", `{"target": "https://repo.example.org/2"}`, "If-None-Match", `"1"`)
	if got.Status != http.StatusPreconditionFailed {
		t.Errorf("If-None-Match: \"1\" on version 1: %d %s, want 412", got.Status, got.Body)
	}
	// A list in If-Match is valid HTTP: none of it current, 412.
	got = s.Call("PUT", "/id/ark:12345/x5inm", "editor", `{"target": "https://repo.example.org/3"}`, "If-Match", `"7", "8"`)
	if got.Status != http.StatusPreconditionFailed {
		t.Errorf("If-Match: \"7\", \"8\" with neither current: %d %s, want 412", got.Status, got.Body)
	}
	// A weak tag never matches If-Match (strong comparison).
	got = s.Call("PUT", "/id/ark:12345/x5inm", "editor", `{"target": "https://repo.example.org/4"}`, "If-Match", `W/"1"`)
	if got.Status != http.StatusPreconditionFailed {
		t.Errorf("If-Match: W/\"1\" on version 1: %d %s, want 412", got.Status, got.Body)
	}
	// If-None-Match compares weakly, and looks through the whole list.
	got = s.Call("PUT", "/id/ark:12345/x5inm", "editor", `{"target": "https://repo.example.org/5"}`, "If-None-Match", `"9", W/"1"`)
	if got.Status != http.StatusPreconditionFailed {
		t.Errorf("If-None-Match: \"9\", W/\"1\" on version 1: %d %s, want 412", got.Status, got.Body)
	}
	if r := s.Lookup("ark:12345/x5inm"); r.Binding.Version != 1 || r.Binding.Target != "https://repo.example.org/1" {
		t.Fatalf("changed by refused conditional PUTs: %+v", r.Binding)
	}
	// A list that holds the current ETag matches; one that does not, for
	// If-None-Match, lets the change through.
	got = s.Call("PUT", "/id/ark:12345/x5inm", "editor", `{"target": "https://repo.example.org/6"}`, "If-Match", `"7", "1"`)
	if got.Status != http.StatusOK || got.Header.Get("ETag") != `"2"` {
		t.Errorf("If-Match: \"7\", \"1\" on version 1: %d %s", got.Status, got.Body)
	}
	got = s.Call("PUT", "/id/ark:12345/x5inm", "editor", `{"target": "https://repo.example.org/7"}`, "If-None-Match", `"1", "3"`)
	if got.Status != http.StatusOK || got.Header.Get("ETag") != `"3"` {
		t.Errorf("If-None-Match: \"1\", \"3\" on version 2: %d %s", got.Status, got.Body)
	}
	got = s.Call("PUT", "/id/ark:12345/x5inm", "editor", `{"target": "https://repo.example.org/8"}`, "If-Match", `3`)
	if got.Status != http.StatusBadRequest {
		t.Errorf("If-Match: 3 (no quotes): %d %s, want 400", got.Status, got.Body)
	}
	// If-None-Match with a tag on an identifier not bound creates it.
	got = s.Call("PUT", "/id/ark:12345/x5inm2", "editor", `{"target": "https://repo.example.org/9"}`, "If-None-Match", `"1"`)
	if got.Status != http.StatusCreated {
		t.Errorf("If-None-Match: \"1\" on an unbound id: %d %s", got.Status, got.Body)
	}
	// Withdrawal takes the same preconditions.
	got = s.Call("POST", "/withdraw/ark:12345/x5inm", "editor", `{"reason": "gone"}`, "If-None-Match", `"3"`)
	if got.Status != http.StatusPreconditionFailed {
		t.Errorf("withdraw under If-None-Match: \"3\" on version 3: %d %s, want 412", got.Status, got.Body)
	}
	got = s.Call("POST", "/withdraw/ark:12345/x5inm", "editor", `{"reason": "gone"}`, "If-Match", `"2", "3"`)
	if got.Status != http.StatusOK {
		t.Errorf("withdraw under If-Match: \"2\", \"3\" on version 3: %d %s", got.Status, got.Body)
	}
}

// TestAPIMintBindTooLongTarget: a mint-and-bind whose target is invalid
// with the real names (too long once {id} is replaced) is refused, 400,
// with nothing stored, not even the minter's counter: never names minted
// unbound behind a 201.
func TestAPIMintBindTooLongTarget(t *testing.T) {
	s := caddytest.StartAPISite(t, "minter ark:12345/x5 .reeddeedk\n\t\tminter ark:12345/x6 .zd")
	base := "https://repo.example.org/"
	n := (table.MaxTargetBytes - len(base)) / len("ark:12345/x50")
	target := base + strings.Repeat("{id}", n)
	got := s.Call("POST", "/mint/ark:12345/x5?n=3", "editor", `{"target": "`+target+`"}`)
	if got.Status != http.StatusBadRequest || !strings.Contains(got.Body, "longer than") {
		t.Errorf("mint-and-bind with a target too long for the real names: %d %.300s, want 400", got.Status, got.Body)
	}
	if keys := storedKeys(t, s); len(keys) != 0 {
		t.Errorf("stored by a refused mint-and-bind: %v", keys)
	}

	// An unbounded template's names grow: x60 to x69 fit a target sized
	// for three-character names, x610 does not.
	target = "/" + strings.Repeat("{id}", (table.MaxTargetBytes-1)/len("ark:12345/x60"))
	got = s.Call("POST", "/mint/ark:12345/x6?n=10", "editor", `{"target": "`+target+`"}`)
	ids := caddytest.Minted(t, got)
	if got.Status != http.StatusCreated || len(ids) != 10 {
		t.Fatalf("mint-and-bind of x60 to x69: %d %.300s", got.Status, got.Body)
	}
	for _, id := range ids {
		if r := s.Lookup(id); r == nil || r.Binding.Status == 0 || !strings.HasPrefix(r.Binding.Target, "/"+id+id) {
			t.Errorf("%s: not bound: %+v", id, r)
		}
	}
	got = s.Call("POST", "/mint/ark:12345/x6?n=2", "editor", `{"target": "`+target+`"}`)
	if got.Status != http.StatusBadRequest || strings.Contains(got.Body, "ids") {
		t.Errorf("mint-and-bind of x610 with a target that only fits shorter names: %d %.300s, want 400", got.Status, got.Body)
	}
	if keys := storedKeys(t, s); len(keys) != 10 {
		t.Errorf("stored: %v, want the 10 names bound", keys)
	}
	// The refusal wrote nothing, not even the minter's counter.
	if got := s.Call("POST", "/mint/ark:12345/x6", "editor", ""); got.Status != http.StatusCreated || !strings.Contains(got.Body, `"ark:12345/x610"`) {
		t.Errorf("mint after the refusal: %d %s, want ark:12345/x610", got.Status, got.Body)
	}
}

// storedKeys returns the keys of every binding in the store file of s,
// bound, withdrawn or only minted.
func storedKeys(t *testing.T, s *caddytest.APISite) []string {
	t.Helper()
	st := testkit.Provision(t, &bolt.Store{Path: s.DB})
	var keys []string
	if err := st.DB().View(func(tx *bbolt.Tx) error {
		return tx.Bucket([]byte("bindings")).ForEach(func(k, _ []byte) error {
			keys = append(keys, string(k))
			return nil
		})
	}); err != nil {
		t.Fatal(err)
	}
	return keys
}

// damageBinding writes a binding that does not decode into the store file
// of s, through the process's shared handle.
func damageBinding(t *testing.T, s *caddytest.APISite, key string) {
	t.Helper()
	st := testkit.Provision(t, &bolt.Store{Path: s.DB})
	if err := st.DB().Update(func(tx *bbolt.Tx) error {
		return tx.Bucket([]byte("bindings")).Put([]byte(key), []byte("{not json"))
	}); err != nil {
		t.Fatal(err)
	}
}

// TestAPIExportStoreFailure: an export whose store fails is never a
// complete 200: before anything is sent it is 503; after, the transfer
// fails, and `caddy ark export --api` exits 1 with one line.
func TestAPIExportStoreFailure(t *testing.T) {
	s := caddytest.StartAPISite(t, "")
	if got := s.Call("PUT", "/id/ark:12345/x5a", "editor", `{"target": "https://repo.example.org/a"}`); got.Status != http.StatusCreated {
		t.Fatalf("create: %d %s", got.Status, got.Body)
	}
	damageBinding(t, s, "ark:12345/x5b")
	got := s.Call("GET", "/export", "editor", "")
	var v any
	if jerr := json.Unmarshal([]byte(got.Body), &v); got.Status != http.StatusServiceUnavailable || jerr != nil || got.Header.Get("Content-Disposition") != "" {
		t.Errorf("export over a damaged store: %d, JSON error %v, body %q; want 503", got.Status, jerr, got.Body)
	}

	// A whole batch of the store's Each, more than the answer's buffer,
	// before the damaged binding: the status has been sent when the store
	// fails, and the transfer must fail.
	var entries []map[string]string
	for i := range store.EachBatchCount {
		id := fmt.Sprintf("ark:12345/x5a%04d", i)
		entries = append(entries, map[string]string{"id": id, "target": "https://repo.example.org/" + id + "/" + strings.Repeat("p", 100)})
	}
	body, _ := json.Marshal(map[string]any{"entries": entries})
	if got := s.Call("POST", "/import", "editor", string(body)); got.Status != http.StatusOK {
		t.Fatalf("import: %d %.200s", got.Status, got.Body)
	}
	req, _ := http.NewRequest("GET", s.Base+"/api/ark/export", nil)
	req.Header.Set("Authorization", "Bearer editor-secret")
	resp, err := caddytest.Client.Do(req)
	if err == nil {
		data, rerr := io.ReadAll(resp.Body)
		resp.Body.Close()
		if rerr == nil {
			t.Errorf("export cut short by the store: a complete transfer, %d, %d bytes", resp.StatusCode, len(data))
		}
	}

	// The command says so, and fails.
	t.Setenv("ARK_API_KEY", "editor-secret")
	out, errOut, status := caddytest.RunCaddy(t, "", "ark", "export", "--api", s.Base+"/api/ark")
	t.Logf("caddy ark export --api, cut short: %d %q", status, errOut)
	if status != 1 || !strings.Contains(errOut, "export") || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
		t.Errorf("caddy ark export --api, cut short: %d, stderr %q, %d bytes out", status, errOut, len(out))
	}
}

// TestAPIMintBareNAAN: a key scoped to a NAAN may mint, and mint-and-bind,
// from a minter on the bare NAAN; keys scoped to a shoulder of it, or
// that may only read, may not.
func TestAPIMintBareNAAN(t *testing.T) {
	s := caddytest.StartAPISite(t, `minter ark:12345 .sddd`)
	got := s.Call("POST", "/mint/ark:12345", "editor", "")
	if got.Status != http.StatusCreated {
		t.Fatalf("write:ark:12345 minting from the NAAN's minter: %d %s", got.Status, got.Body)
	}
	if ids := caddytest.Minted(t, got); len(ids) != 1 || ids[0] != "ark:12345/000" {
		t.Errorf("minted %v, want ark:12345/000", ids)
	}
	got = s.Call("POST", "/mint/ark:/12345", "editor", `{"target": "https://repo.example.org/{id}"}`)
	if ids := caddytest.Minted(t, got); got.Status != http.StatusCreated || len(ids) != 1 || s.Lookup(ids[0]).Binding.Target != "https://repo.example.org/"+ids[0] {
		t.Errorf("mint-and-bind from the NAAN's minter: %d %s", got.Status, got.Body)
	}
	for _, key := range []string{"x5", "reader"} {
		if got := s.Call("POST", "/mint/ark:12345", key, ""); got.Status != http.StatusForbidden {
			t.Errorf("%s minting from the NAAN's minter: %d %s, want 403", key, got.Status, got.Body)
		}
	}
}

// An id that could never be answered, because one of its segments would
// start with "." (in any encoding), is refused by the API, and so is a
// body with more after its JSON object, in PUT and in a bulk line.
func TestAPIRefusesDottedIDsAndTrailingText(t *testing.T) {
	s := caddytest.StartAPISite(t, "")
	for _, id := range []string{"ark:12345/x5g/%2E%2E/%2E%2E", "ark:12345/x5g/%252e%252e", "ark:12345/x5g/%2Eenv"} {
		if got := s.Call("PUT", "/id/"+id, "editor", `{"target": "https://repo.example.org/g"}`); got.Status != http.StatusBadRequest || !strings.Contains(got.Body, `would start with \".\"`) {
			t.Errorf("PUT %s: %d %s, want 400 saying a segment would start with \".\"", id, got.Status, got.Body)
		}
	}
	s.ExpectUnbound("ark:12345/x5g")
	if got := s.Call("PUT", "/id/ark:12345/x5t", "editor", `{"target": "https://repo.example.org/t"} {"target": "https://evil.example/"}`); got.Status != http.StatusBadRequest {
		t.Errorf("PUT with a second JSON value: %d %s, want 400", got.Status, got.Body)
	}
	s.ExpectUnbound("ark:12345/x5t")
	got := s.Call("POST", "/bulk", "editor", `{"op": "bind", "id": "ark:12345/x5u", "target": "https://repo.example.org/u"} trailing`+"\n")
	if !strings.Contains(got.Body, `"status":400`) && !strings.Contains(got.Body, `"status": 400`) {
		t.Errorf("a bulk line with text after its object: %d %s, want its result 400", got.Status, got.Body)
	}
	s.ExpectUnbound("ark:12345/x5u")
}
