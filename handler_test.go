package ark

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/table"
)

// baseSite is the configuration most resolution tests share.
func baseSite(t *testing.T) *caddytest.Site {
	t.Helper()
	tablePath := testkit.WriteTable(t, []table.Entry{
		{ID: "ark:/12345/b2c4d6", Target: "/dir"},
		{ID: "ark:12345/d4", Target: "/dir/"},
		{ID: "ark:12345/d5", Target: "https://repo.example.org/dir/"},
		{ID: "ark:12345/k8m2n4", Target: "https://repo.example.org/items/k8m2n4", Status: 307},
		{ID: "ark:12345/f3p0q7", Target: "/objects/x5wf6789.html", Passthrough: new(bool)},
		{ID: "ark:12345/g5h6j7", Status: 410},
		{ID: "ark:12345/h7", Target: "https://repo.example.org"},
	})
	return caddytest.StartSite(t, `
	root * `+caddytest.SiteRoot(t)+`
	ark {
		naan 12345 67890
		table `+tablePath+`
		map ark:12345/x5wf6789 /objects/x5wf6789.html
		map ark:12345/x5abcd https://repo.example.org/abcd
		map ark:12345/x5efgh https://repo.example.org/efgh 303
		map ark:12345/c3700931 https://repo.example.org/c3700931?from=ark
		map ark:12345/ax20315 https://repo.example.org/ax20315
		map "ark:12345/4бф3х1" https://repo.example.org/cyrillic
		map urn:nbn:de:101-2024 /objects/thesis.html
		map urn:example:a123,z456 https://repo.example.org/urn
		shoulder ark:12345/t3 https://repo.example.org/t/{http.ark.blade}
		shoulder ark:12345/t3x9 https://repo.example.org/t3x9/{http.ark.blade}
		shoulder ark:67890 /objects/{http.ark.name}.html
	}
	file_server`)
}

func TestEquivalentSpellingsGetTheSameAnswer(t *testing.T) {
	s := baseSite(t)
	groups := map[string][]string{
		// draft-ark-uri-scheme, section on resolution: these must be treated the same.
		"draft hyphens": {"/ark:12345/c3700931", "/ark:12345/c370-0931", "/ark:/12-345/c37-009-31--", "/ARK:/12345/c3700931", "/ark:12345/c37%2D00931", "/ark:12345/%63%33700931"},
		"in place":      {"/ark:12345/x5wf6789", "/ark:/12345/x5wf6789", "/ark:12345/x5-wf-6789", "/Ark:/12345/x5wf6789/", "/ark:12345/x5wf6789.", "/ark://12345/x5wf6789", "/ark:12345/x5%E2%80%90wf6789"},
		// variant order is meaningless: a descendant of ax20315 reached with its variants in any order.
		"variants":  {"/ark:12345/ax20315.svg.en", "/ark:12345/ax20315.en.svg", "/ark:12345/ax20315.en.svg.en", "/ark:12345/ax20315..en.svg"},
		"non-ASCII": {"/ark:12345/4%D0%B1%D1%843%D1%851", "/ark:12345/4%d0%b1%d1%843%d1%851"},
		"urn":       {"/urn:example:a123,z456", "/URN:example:a123,z456", "/urn:EXAMPLE:a123,z456"},
	}
	for name, spellings := range groups {
		want := s.Get(spellings[0])
		if want.Status == http.StatusNotFound || want.Status >= 400 {
			t.Fatalf("%s: %s answered %d %q", name, spellings[0], want.Status, want.Body)
		}
		for _, p := range spellings[1:] {
			got := s.Get(p)
			if got.Status != want.Status || got.Location != want.Location || got.Body != want.Body {
				t.Errorf("%s: %s answered %d %q, but %s answered %d %q", name, p, got.Status, got.Location, spellings[0], want.Status, want.Location)
			}
		}
	}
}

func TestInPlaceServesTheTargetFile(t *testing.T) {
	s := baseSite(t)
	want := testkit.ReadFile(t, "testdata/site/objects/x5wf6789.html")
	got := s.Get("/ark:12345/x5wf6789")
	if got.Status != http.StatusOK || got.Body != want || got.Location != "" {
		t.Fatalf("got %d %q Location %q, want 200 with the file's bytes", got.Status, got.Body, got.Location)
	}
	thesis := s.Get("/urn:nbn:de:101-2024")
	if thesis.Status != http.StatusOK || thesis.Body != testkit.ReadFile(t, "testdata/site/objects/thesis.html") {
		t.Fatalf("URN in place: got %d %q", thesis.Status, thesis.Body)
	}
}

func TestRedirectsCarryStatusAndLocation(t *testing.T) {
	s := baseSite(t)
	for path, want := range map[string]caddytest.Answer{
		"/ark:12345/x5abcd":  {Status: 302, Location: "https://repo.example.org/abcd"},
		"/ark:12345/x5efgh":  {Status: 303, Location: "https://repo.example.org/efgh"},
		"/ark:12345/k8m2n4":  {Status: 307, Location: "https://repo.example.org/items/k8m2n4"},
		"/ark:12345/x5-abcd": {Status: 302, Location: "https://repo.example.org/abcd"},
	} {
		got := s.Get(path)
		if got.Status != want.Status || got.Location != want.Location {
			t.Errorf("%s: got %d %q, want %d %q", path, got.Status, got.Location, want.Status, want.Location)
		}
	}
}

func TestHeadAnswersLikeGetWithoutBody(t *testing.T) {
	s := baseSite(t)
	for _, p := range []string{"/ark:12345/x5wf6789", "/ark:12345/x5abcd", "/ark:12345/nothing", "/ark:12345/g5h6j7"} {
		get, head := s.Get(p), s.Do(http.MethodHead, p, nil)
		if head.Status != get.Status || head.Location != get.Location || head.Body != "" {
			t.Errorf("HEAD %s: %d %q body %q; GET: %d %q", p, head.Status, head.Location, head.Body, get.Status, get.Location)
		}
	}
}

func TestPassthroughAppendsTheNormalizedSuffix(t *testing.T) {
	s := baseSite(t)
	page := testkit.ReadFile(t, "testdata/site/dir/sub/s4.html")
	for _, p := range []string{"/ark:12345/b2c4d6/sub/s4.html", "/ark:/12345/b2-c4d6/sub/s4.html", "/ark:12345/b2c4d6//sub/s4.html", "/ark:12345/d4/sub/s4.html"} {
		if got := s.Get(p); got.Status != 200 || got.Body != page {
			t.Errorf("%s: got %d %q, want the page under the target directory", p, got.Status, got.Body)
		}
	}
	s.ExpectRedirects(map[string]string{
		"/ark:12345/x5abcd/c2/s4.pdf":     "https://repo.example.org/abcd/c2/s4.pdf",
		"/ark:12345/x5abcd/c-2/s4.pdf.en": "https://repo.example.org/abcd/c2/s4.en.pdf",
		"/ark:12345/x5abcd.pdf.en":        "https://repo.example.org/abcd.en.pdf",
		"/ark:12345/c3700931/p1":          "https://repo.example.org/c3700931/p1?from=ark",
		"/ark:12345/d5/c2":                "https://repo.example.org/dir/c2",
		"/ark:12345/c3700931/p1?page=2":   "https://repo.example.org/c3700931/p1?from=ark&page=2",
	})
	if got := s.Get("/ark:12345/f3p0q7/c1"); got.Status != http.StatusNotFound {
		t.Errorf("passthrough off: got %d %q, want 404", got.Status, got.Location)
	}
	if got := s.Get("/ark:12345/f3p0q7"); got.Status != http.StatusOK {
		t.Errorf("passthrough off, the entry itself: got %d", got.Status)
	}
}

func TestTemplatesBuildTargetsFromTheARK(t *testing.T) {
	s := baseSite(t)
	s.ExpectRedirects(map[string]string{
		"/ark:12345/t3zq81":        "https://repo.example.org/t/zq81",
		"/ark:12345/t3-zq81/c1.en": "https://repo.example.org/t/zq81/c1.en",
		"/ark:12345/t3x9bb":        "https://repo.example.org/t3x9/bb", // the longer shoulder wins
	})
	if got := s.Get("/ark:67890/x5wf6789"); got.Status != 200 || got.Body != testkit.ReadFile(t, "testdata/site/objects/x5wf6789.html") {
		t.Errorf("NAAN template in place: got %d %q", got.Status, got.Body)
	}
}

func TestPlaceholdersReachLaterHandlers(t *testing.T) {
	s := caddytest.StartSite(t, `
	ark {
		map ark:12345/x5wf6789 /anything
	}
	respond "id={http.ark.id} naan={http.ark.naan} name={http.ark.name} shoulder={http.ark.shoulder} blade={http.ark.blade} suffix={http.ark.suffix} outcome={http.ark.outcome} target={http.ark.target} uri={http.request.uri}"`)
	got := s.Get("/ark:/12345/x5-wf6789/c2.pdf")
	want := "id=ark:12345/x5wf6789/c2.pdf naan=12345 name=x5wf6789 shoulder=x5 blade=wf6789 suffix=/c2.pdf outcome=in_place target=/anything/c2.pdf uri=/anything/c2.pdf"
	if got.Body != want {
		t.Fatalf("got  %q\nwant %q", got.Body, want)
	}
}

func TestForeignNAANsGoToTheGlobalResolver(t *testing.T) {
	s := baseSite(t)
	s.ExpectRedirects(map[string]string{
		"/ark:/99166/w66d-60p2":    "https://n2t.net/ark:99166/w66d60p2",
		"/ark:99166/w66d60p2?info": "https://n2t.net/ark:99166/w66d60p2?info",
		"/ark:99166/w66d60p2?":     "https://n2t.net/ark:99166/w66d60p2?",
	})
	// Our own NAANs are never forwarded: that could loop.
	for _, p := range []string{"/ark:12345/zzzz", "/ark:67890/"} {
		if got := s.Get(p); got.Status == 302 {
			t.Errorf("%s: our NAAN was forwarded to %q", p, got.Location)
		}
	}
	s2 := caddytest.StartSite(t, `ark {
		map ark:12345/x5wf6789 /x
		foreign 404
	}`)
	if got := s2.Get("/ark:99166/w66d60p2"); got.Status != 404 {
		t.Errorf("foreign 404: got %d %q", got.Status, got.Location)
	}
}

func TestQueriesPassToTargetsButInflectionsDoNot(t *testing.T) {
	s := baseSite(t)
	for p, want := range map[string]string{
		"/ark:12345/x5abcd?page=2&x=y":    "https://repo.example.org/abcd?page=2&x=y",
		"/urn:example:a123,z456?=lang=de": "https://repo.example.org/urn?lang=de",
		"/urn:example:a123,z456?+res?=q":  "https://repo.example.org/urn?q",
	} {
		if got := s.Get(p); got.Location != want {
			t.Errorf("%s: got %d %q, want %q", p, got.Status, got.Location, want)
		}
	}
	// The inflections ask for metadata (info_test.go): answered here, never passed on.
	for _, p := range []string{"/ark:12345/x5abcd?info", "/ark:12345/x5abcd?", "/ark:12345/x5abcd??"} {
		if got := s.Get(p); got.Status != 200 || got.Location != "" {
			t.Errorf("%s: got %d %q, want 200 metadata and no redirect", p, got.Status, got.Location)
		}
	}
}

func TestOtherRequestsPassUntouched(t *testing.T) {
	s := baseSite(t)
	for _, p := range []string{"/index.html", "/arkives", "/objects/x5wf6789.html", "/dir/ark:12345/x5wf6789"} {
		got := s.Get(p)
		if strings.Contains(got.Body, "not assigned here") || got.Status == 400 || got.Status == 302 {
			t.Errorf("%s was intercepted: %d %q", p, got.Status, got.Body)
		}
	}
	if got := s.Get("/index.html"); got.Status != 200 || got.Body != testkit.ReadFile(t, "testdata/site/index.html") {
		t.Errorf("/index.html: got %d %q", got.Status, got.Body)
	}
}

// file_server redirects to a canonical URI (308, permanent) to add or drop
// a directory's trailing slash; an identifier must never be answered with a
// permanent redirect, so such answers become temporary, to an equivalent
// spelling of the same identifier.
func TestInPlaceNeverRedirectsPermanently(t *testing.T) {
	s := caddytest.StartSite(t, `
	root * `+caddytest.SiteRoot(t)+`
	ark {
		map ark:12345/x5noext /objects/x5noext
		map ark:12345/b2c4d6 /objects/b2c4d6/
		map ark:12345/d1 /dir/
	}
	file_server`)
	for p, file := range map[string]string{
		"/ark:12345/x5noext":  "testdata/site/objects/x5noext",
		"/ark:12345/x5noext/": "testdata/site/objects/x5noext",
		"/ark:12345/x5noext.": "testdata/site/objects/x5noext",
		"/ark:12345/b2c4d6":   "testdata/site/objects/b2c4d6/index.html",
		"/ark:12345/b2c4d6/":  "testdata/site/objects/b2c4d6/index.html",
		"/ark:12345/d1/sub2":  "testdata/site/dir/sub2/index.html",
	} {
		got, hops := s.Get(p), 0
		for got.Status >= 300 && got.Status < 400 && hops < 3 {
			next := strings.TrimPrefix(got.Location, s.Base)
			if got.Status == 301 || got.Status == 308 || !strings.HasPrefix(next, "/ark:") {
				break
			}
			got, hops = s.Get(next), hops+1
		}
		if got.Status != http.StatusOK || got.Body != testkit.ReadFile(t, file) {
			t.Errorf("%s: got %d Location %q after %d temporary redirects, want 200 with %s", p, got.Status, got.Location, hops, file)
		}
	}
}

// The nearest ancestor with passthrough off keeps its descendants to
// itself: templates do not answer for them either.
func TestPassthroughOffIsNotFoundEvenWithATemplate(t *testing.T) {
	s := caddytest.StartSite(t, `ark {
		map ark:12345/x5 https://repo.example.org/x5 {
			passthrough off
		}
		shoulder ark:12345 https://templ.example.org/{http.ark.name}
	}`)
	if got := s.Get("/ark:12345/x5/c2"); got.Status != 404 {
		t.Errorf("got %d %q, want 404", got.Status, got.Location)
	}
}

// Templates with a query keep working for ARKs with qualifiers: the
// qualifier goes on the path, the query stays the query.
func TestTemplateWithAQueryTakesQualifiers(t *testing.T) {
	s := caddytest.StartSite(t, `ark {
		shoulder ark:12345/t3 https://example.org/r?id={http.ark.name}
		shoulder ark:12345/w4 /files?id={http.ark.name} 302
	}`)
	s.ExpectRedirects(map[string]string{
		"/ark:12345/t3x/c":   "https://example.org/r/c?id=t3x",
		"/ark:12345/t3x.pdf": "https://example.org/r.pdf?id=t3x",
		"/ark:12345/w4x/c":   "/files/c?id=w4x",
	})
}

// The target served in place reaches the next handler spelled as it was
// written, with or without a query: sub-delimiters are not re-escaped
// (a reverse proxy sends this URI upstream).
func TestInPlaceTargetKeepsItsSpelling(t *testing.T) {
	s := caddytest.StartSite(t, `
	ark {
		map ark:12345/x5a "/objects/a!b(c)[1].html"
	}
	respond "{http.request.uri}"`)
	for p, want := range map[string]string{
		"/ark:12345/x5a":     "/objects/a!b(c)[1].html",
		"/ark:12345/x5a?q=1": "/objects/a!b(c)[1].html?q=1",
	} {
		if got := s.Get(p); got.Body != want {
			t.Errorf("%s: next handler saw %q, want %q", p, got.Body, want)
		}
	}
}

func TestWatchOption(t *testing.T) {
	for body, want := range map[string]string{
		"ark {\n\twatch\n}":       `"watch":true}`,
		"ark {\n\twatch 250ms\n}": `"watch":true,"watch_interval":250000000}`,
		"ark {\n\twatch 0s\n}":    "not a positive duration",
		"ark {\n\twatch often\n}": "not a positive duration",
		"ark {\n\twatch 1s 2s\n}": "wrong argument count",
		"ark {\n\tnaan 12345\n}":  `"naans":["12345"]}`,
	} {
		cfg, err := caddytest.AdaptCaddyfile(":80 {\n"+body+"\n}", "Caddyfile")
		got := string(cfg)
		if err != nil {
			got = err.Error()
		}
		if !strings.Contains(got, want) {
			t.Errorf("%q: got %s, want %s", body, got, want)
		}
	}
	var h Handler
	if err := json.Unmarshal([]byte(`{"watch": true, "watch_interval": "2s"}`), &h); err != nil || !h.Watch || time.Duration(h.WatchInterval) != 2*time.Second {
		t.Errorf("JSON: watch %v, watch_interval %v, %v", h.Watch, h.WatchInterval, err)
	}
	h.WatchInterval = -1
	if err := h.Validate(); err == nil {
		t.Error("a negative watch_interval is valid")
	}
}

// The names the ark block offers are those it takes: each is known (the
// blocks inside it test their own lists).
func TestSubdirectiveSuggestionsAreKnown(t *testing.T) {
	for _, name := range subdirectiveNames() {
		_, err := caddytest.AdaptCaddyfile(fmt.Sprintf(":8080 {\n\tark {\n\t%s\n\t}\n}\n", name), filepath.Join(t.TempDir(), "Caddyfile"))
		if err != nil && strings.Contains(err.Error(), "unknown") {
			t.Errorf("%q: %v", name, err)
		}
	}
}
