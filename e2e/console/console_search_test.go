package console

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/table"
)

// seedSearch binds, withdraws and mints a few identifiers for the
// search tests; it returns the name minted.
func seedSearch(t *testing.T, s *caddytest.ConsoleSite) string {
	t.Helper()
	for path, body := range map[string]string{
		"/id/ark:12345/x5one":            `{"target": "https://old.example.org/one", "meta": {"who": "A. Curator", "what": "A map, of the coast"}}`,
		"/id/ark:12345/x5two":            `{"target": "https://old.example.org/two"}`,
		"/id/ark:12345/y7three":          `{"target": "https://elsewhere.example.org/three"}`,
		"/id/urn:isbn:978-3-16-148410-0": `{"target": "https://old.example.org/book"}`,
		"/withdraw/ark:12345/x5gone":     `{"reason": "lost"}`,
	} {
		method := "PUT"
		if strings.HasPrefix(path, "/withdraw/") {
			method = "POST"
		}
		if got := s.Call(method, path, "editor", body); got.Status/100 != 2 {
			t.Fatalf("%s %s: %d %s", method, path, got.Status, got.Body)
		}
	}
	got := s.Call("POST", "/mint/ark:12345/x5", "editor", "")
	var minted struct{ IDs []string }
	if err := json.Unmarshal([]byte(got.Body), &minted); got.Status != http.StatusCreated || err != nil || len(minted.IDs) != 1 {
		t.Fatalf("mint: %d %s", got.Status, got.Body)
	}
	return minted.IDs[0]
}

// foundIDs returns the identifiers of a search page's rows, in order.
func foundIDs(body string) []string {
	var ids []string
	for _, m := range regexp.MustCompile(`<tr><td><a href="[^"]*">([^<]+)</a>`).FindAllStringSubmatch(body, -1) {
		ids = append(ids, m[1])
	}
	return ids
}

func TestConsoleSearch(t *testing.T) {
	s := caddytest.StartConsoleSite(t, "ui")
	minted := seedSearch(t, s)
	editor := s.SignIn("editor")
	for query, want := range map[string]string{
		"q=old.example":                    "[ark:12345/x5one ark:12345/x5two urn:isbn:978-3-16-148410-0]",
		"q=CURATOR":                        "[ark:12345/x5one]",
		"prefix=ark:/12345/x5":             fmt.Sprint(slices.Sorted(slices.Values([]string{"ark:12345/x5gone", "ark:12345/x5one", "ark:12345/x5two", minted}))),
		"prefix=ark:12345/x5&status=bound": "[ark:12345/x5one ark:12345/x5two]",
		"status=withdrawn":                 "[ark:12345/x5gone]",
		"status=minted":                    "[" + minted + "]",
		"q=nothing+like+it":                "[]",
	} {
		got := editor.Get("search?" + query)
		if ids := fmt.Sprint(foundIDs(got.Body)); got.Status != http.StatusOK || ids != want {
			t.Errorf("search?%s: %d %s, want %s", query, got.Status, ids, want)
		}
	}
	if got := editor.Get("search?q=nothing+like+it"); !strings.Contains(got.Body, "Nothing found with “nothing like it”") {
		t.Errorf("an empty search says nothing: %s", got.Body)
	}
	if got := editor.Get("search?status=lost"); got.Status != http.StatusBadRequest || !strings.Contains(got.Body, "bound, withdrawn or minted") {
		t.Errorf("a bad status: %d %s", got.Status, got.Body)
	}
	// The reader's scope is ark:12345: no URN.
	if ids := fmt.Sprint(foundIDs(s.SignIn("reader").Get("search?q=old.example").Body)); ids != "[ark:12345/x5one ark:12345/x5two]" {
		t.Errorf("the reader finds %s", ids)
	}
	// x5's scope is the x5 shoulder.
	if ids := fmt.Sprint(foundIDs(s.SignIn("x5").Get("search?q=example").Body)); ids != "[ark:12345/x5one ark:12345/x5two]" {
		t.Errorf("x5 finds %s", ids)
	}
}

func TestConsoleSearchPages(t *testing.T) {
	s := caddytest.StartConsoleSite(t, "ui")
	var entries []string
	for i := range 1005 {
		entries = append(entries, fmt.Sprintf(`{"id": "ark:12345/x5p%04d", "target": "https://pages.example.org/%d"}`, i, i))
	}
	if got := s.Call("POST", "/import", "editor", `{"entries": [`+strings.Join(entries, ",")+`]}`); got.Status != http.StatusOK {
		t.Fatalf("import: %d %s", got.Status, got.Body)
	}
	editor := s.SignIn("editor")
	page := editor.Get("search?q=pages.example")
	ids := foundIDs(page.Body)
	if len(ids) != 50 || ids[0] != "ark:12345/x5p0000" || ids[49] != "ark:12345/x5p0049" {
		t.Fatalf("first page: %d identifiers, %v … ", len(ids), ids[:min(len(ids), 3)])
	}
	next := regexp.MustCompile(`<a href="/api/ark/ui/(search\?[^"]+)" rel="next">Next page</a>`).FindStringSubmatch(page.Body)
	if next == nil {
		t.Fatal("no link to the next page")
	}
	second := foundIDs(editor.Get(strings.ReplaceAll(next[1], "&amp;", "&")).Body)
	if len(second) != 50 || second[0] != "ark:12345/x5p0050" {
		t.Errorf("second page: %d identifiers starting %v", len(second), second[:min(len(second), 1)])
	}

	// The export is of the whole search, past the API's pages of 1000.
	got := editor.Get("export?format=csv&q=pages.example")
	if got.Status != http.StatusOK || got.Header.Get("Content-Type") != "text/csv; charset=utf-8" || !strings.Contains(got.Header.Get("Content-Disposition"), "attachment") {
		t.Fatalf("CSV export: %d %v", got.Status, got.Header)
	}
	rows, err := csv.NewReader(strings.NewReader(got.Body)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1+1005 || rows[1005][0] != "ark:12345/x5p1004" || rows[1005][1] != "https://pages.example.org/1004" {
		t.Errorf("CSV export: %d rows, last %v", len(rows), rows[len(rows)-1])
	}
}

func TestConsoleExport(t *testing.T) {
	s := caddytest.StartConsoleSite(t, "ui")
	seedSearch(t, s)
	editor := s.SignIn("editor")

	got := editor.Get("export?format=csv&prefix=ark:12345/x5")
	rows, err := csv.NewReader(strings.NewReader(got.Body)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	// The name minted and not bound is left out: an entry needs a target.
	want := []string{
		"id|target|status|who|what|when|where|persistence|allocated|reason",
		"ark:12345/x5gone||410|||||||lost",
		"ark:12345/x5one|https://old.example.org/one|302|A. Curator|A map, of the coast|||||",
		"ark:12345/x5two|https://old.example.org/two|302|||||||",
	}
	var lines []string
	for _, r := range rows {
		lines = append(lines, strings.Join(r, "|"))
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("CSV export:\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}

	got = editor.Get("export?format=json&q=old.example")
	if got.Status != http.StatusOK || got.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("table export: %d %s", got.Status, got.Body)
	}
	var exported struct{ Entries []table.Entry }
	if err := json.Unmarshal([]byte(got.Body), &exported); err != nil {
		t.Fatalf("the table export is not a table file: %v\n%s", err, got.Body)
	}
	if len(exported.Entries) != 3 || exported.Entries[0].Meta["who"] != "A. Curator" || exported.Entries[2].ID != "urn:isbn:978-3-16-148410-0" {
		t.Errorf("table export: %+v", exported.Entries)
	}
	// What is exported imports again, unchanged: the import skips what is
	// bound the same way.
	if got := editor.Upload(editor.Token("import"), "json", "again.json", got.Body); got.Status != http.StatusOK || !strings.Contains(got.Body, "Imported: 0 new in the store") {
		t.Errorf("importing the export again: %d %s", got.Status, got.Body)
	}
	if got := editor.Get("export?format=xml"); got.Status != http.StatusBadRequest {
		t.Errorf("an unknown format: %d", got.Status)
	}
	if got := editor.Get("export?format=csv&status=lost"); got.Status != http.StatusBadRequest || got.Header.Get("Content-Disposition") != "" {
		t.Errorf("an export the API refuses: %d %v", got.Status, got.Header)
	}
}
