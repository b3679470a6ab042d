package serve

import (
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/table"
	"golang.org/x/net/html"
)

// infoSite is a site whose identifiers carry metadata, with policies for
// the NAAN and two shoulders.
func infoSite(t *testing.T) *caddytest.Site {
	t.Helper()
	tablePath := testkit.WriteTable(t, []table.Entry{
		{ID: "ark:/12345/b2c4d6", Target: "/dir", Meta: map[string]string{
			"who": "Example Museum", "what": "The moth collection", "when": "1901",
			"persistence": "Permanent: this ARK will not be reassigned.", "variance": "Stable content",
			"allocated": "2024-05-01", "curator": "J. Doe"}},
		{ID: "ark:12345/k8m2n4", Target: "https://repo.example.org/items/k8m2n4", Status: 307},
		{ID: "ark:12345/g5h6j7", Status: 410, Meta: map[string]string{
			"what": "A withdrawn photograph", "reason": "at the rights holder's request", "withdrawn": "2025-01-10",
			"successor": "ark:/12345/g5-h6j9"}},
		{ID: "ark:12345/g5h6j8", Status: 410},
		{ID: "ark:12345/x%3Cscript%3E%22", Target: "https://repo.example.org/xss", Meta: map[string]string{
			"who": `A "quoted" <b>name</b>`, "what": `<script>alert("x")</script>`,
			"note": "line one\nwho: injected\r\nwhat: too"}},
		{ID: "ark:12345/x5wf6789", Target: "/objects/x5wf6789.html"},
		{ID: "urn:nbn:de:101-2024", Target: "/objects/thesis.html"},
	})
	return caddytest.StartSite(t, `
	root * `+caddytest.SiteRoot(t)+`
	ark {
		naan 12345
		table `+tablePath+`
		map ark:12345/x5efgh https://repo.example.org/efgh 303 {
			who "Caddyfile Press"
			allocated 2023-01-02
		}
		shoulder ark:12345/t3 https://repo.example.org/t/{http.ark.blade}
		policy ark:12345 "Permanent: ARKs under 12345 are never reassigned."
		policy ark:/12345/t3 "Temporary: t3 ARKs are for tests."
		policy ark:12345/q7 "Reserved: q7 is not yet in use."
	}
	file_server`)
}

// describedBy returns the answer's first describedby link (its ?info) as
// `<target>; rel="describedby"`, "" when it has none: what the tests of
// self-links compare, whatever else signposting adds.
func describedBy(got caddytest.Answer) string {
	if d := caddytest.Links(got)["describedby"]; len(d) > 0 {
		return "<" + d[0] + `>; rel="describedby"`
	}
	return ""
}

func containsAll(t *testing.T, what, body string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(body, w) {
			t.Errorf("%s does not contain %q:\n%s", what, w, body)
		}
	}
}

// Each resolution kind, asked with each inflection, answers in each format.
func TestInfoDescribesEveryResolutionKindInEveryFormat(t *testing.T) {
	s := infoSite(t)
	for _, kind := range []struct {
		name, path string
		want       caddytest.Record
		anvl       []string // whole lines of the text/plain answer
		html       []string
	}{
		{
			name: "exact",
			path: "/ark:/12345/b2-c4d6",
			want: caddytest.Record{ID: "ark:/12345/b2-c4d6", Normalized: "ark:12345/b2c4d6", URL: s.Base + "/ark:12345/b2c4d6",
				Status: 200, Target: "/dir", Resolution: "exact", Via: "ark:12345/b2c4d6"},
			anvl: []string{"erc:", "who: Example Museum", "what: The moth collection", "when: 1901",
				"where: " + s.Base + "/ark:12345/b2c4d6", "erc-support:", "what: Permanent: this ARK will not be reassigned.",
				"when: 2024-05-01", "where: " + s.Base + "/ark:12345?info", "", "id: ark:/12345/b2-c4d6",
				"normalized: ark:12345/b2c4d6", "status: 200 OK", "target: /dir", "resolution: exact",
				"variance: Stable content", "allocated: 2024-05-01", "policy: Permanent: ARKs under 12345 are never reassigned.",
				"policy-prefix: ark:12345", "curator: J. Doe"},
			html: []string{"<h1>The moth collection</h1>", "Example Museum", "<code>ark:/12345/b2-c4d6</code>",
				`<a href="` + s.Base + `/ark:12345/b2c4d6">`, "Stable content", "J. Doe",
				// In place: the target links the identifier, not the internal path.
				`<a href="` + s.Base + `/ark:12345/b2c4d6">/dir</a>`},
		},
		{
			name: "inherited",
			path: "/ark:12345/b2c4d6/sub/s4.html",
			want: caddytest.Record{ID: "ark:12345/b2c4d6/sub/s4.html", Normalized: "ark:12345/b2c4d6/sub/s4.html",
				URL: s.Base + "/ark:12345/b2c4d6/sub/s4.html", Status: 200, Target: "/dir/sub/s4.html",
				Resolution: "inherited", Via: "ark:12345/b2c4d6", Suffix: "/sub/s4.html"},
			anvl: []string{"who: Example Museum", "resolution: inherited", "via: ark:12345/b2c4d6", "suffix: /sub/s4.html",
				"target: /dir/sub/s4.html"},
			// Titled as itself, shown as part of its parent.
			html: []string{"<h1>ark:12345/b2c4d6/sub/s4.html</h1>", "inherited", "/sub/s4.html",
				`<p>Part of <a href="` + s.Base + `/ark:12345/b2c4d6">The moth collection</a>.</p>`},
		},
		{
			name: "template",
			path: "/ark:12345/t3-zq81",
			want: caddytest.Record{ID: "ark:12345/t3-zq81", Normalized: "ark:12345/t3zq81", URL: s.Base + "/ark:12345/t3zq81",
				Status: 302, Target: "https://repo.example.org/t/zq81", Resolution: "template", Via: "ark:12345/t3"},
			anvl: []string{"who: (:unav)", "what: Temporary: t3 ARKs are for tests.", "where: " + s.Base + "/ark:12345/t3?info",
				"resolution: template", "via: ark:12345/t3", "status: 302 Found", "target: https://repo.example.org/t/zq81"},
			html: []string{"<h1>ark:12345/t3zq81</h1>", "Temporary: t3 ARKs are for tests.",
				`<a href="https://repo.example.org/t/zq81">`},
		},
		{
			name: "caddyfile map",
			path: "/ark:12345/x5efgh",
			want: caddytest.Record{ID: "ark:12345/x5efgh", Normalized: "ark:12345/x5efgh", URL: s.Base + "/ark:12345/x5efgh",
				Status: 303, Target: "https://repo.example.org/efgh", Resolution: "exact", Via: "ark:12345/x5efgh"},
			anvl: []string{"who: Caddyfile Press", "what: (:unav)", "when: 2023-01-02", "status: 303 See Other"},
			html: []string{"Caddyfile Press", "<em>not given</em>"},
		},
	} {
		for _, inflection := range []string{"?info", "?", "??"} {
			p := kind.path + inflection
			plain := s.Get(p)
			if plain.Status != 200 || plain.Header.Get("Content-Type") != "text/plain; charset=utf-8" {
				t.Fatalf("%s %s: got %d %q %q", kind.name, p, plain.Status, plain.Header.Get("Content-Type"), plain.Body)
			}
			got := testkit.Lines(plain.Body)
			if got[0] != "erc:" || !strings.HasPrefix(got[1], "who:") {
				t.Errorf("%s %s: the ANVL answer does not start with the ERC kernel:\n%s", kind.name, p, plain.Body)
			}
			for _, w := range kind.anvl {
				found := false
				for _, l := range got {
					found = found || l == w
				}
				if !found {
					t.Errorf("%s %s: no line %q in\n%s", kind.name, p, w, plain.Body)
				}
			}

			rec := caddytest.DecodeRecord(t, s.Do(http.MethodGet, p, caddytest.AcceptJSON))
			meta, pol := rec.Meta, rec.Policy
			rec.Meta, rec.Policy, rec.Resolver = nil, nil, ""
			if !reflect.DeepEqual(rec, kind.want) {
				t.Errorf("%s %s JSON:\n got %+v\nwant %+v", kind.name, p, rec, kind.want)
			}
			if kind.name == "exact" || kind.name == "inherited" {
				if meta["who"] != "Example Museum" || meta["allocated"] != "2024-05-01" || meta["curator"] != "J. Doe" || len(meta) != 7 {
					t.Errorf("%s %s: meta %v", kind.name, p, meta)
				}
			}
			if pol == nil || pol.Statement == "" {
				t.Errorf("%s %s: no policy", kind.name, p)
			}

			page := s.Do(http.MethodGet, p, caddytest.AcceptHTML)
			if page.Status != 200 || page.Header.Get("Content-Type") != "text/html; charset=utf-8" {
				t.Fatalf("%s %s HTML: got %d %q", kind.name, p, page.Status, page.Header.Get("Content-Type"))
			}
			containsAll(t, kind.name+" "+p+" HTML", page.Body, append(kind.html, `<html lang="en">`, "<main>")...)

			for _, a := range []caddytest.Answer{plain, page} {
				if a.Header.Get("Vary") != "Accept" {
					t.Errorf("%s %s: Vary %q", kind.name, p, a.Header.Get("Vary"))
				}
				if l := caddytest.Links(a); len(l["describes"]) != 1 || l["describes"][0] != kind.want.URL {
					t.Errorf("%s %s: Link %q, want describes %s", kind.name, p, a.Header.Values("Link"), kind.want.URL)
				}
			}
		}
	}
}

// A withdrawn identifier keeps answering ?info: the tombstone shows that it
// existed, why it went, what replaces it (as its URL, as docs/metadata-
// model.md promises, in the text too), and that it will not be reassigned.
func TestWithdrawnIdentifiersKeepTheirTombstone(t *testing.T) {
	s := infoSite(t)
	if got := s.Get("/ark:12345/g5h6j7"); got.Status != 410 {
		t.Fatalf("without inflection: got %d", got.Status)
	}
	rec := caddytest.DecodeRecord(t, s.Do(http.MethodGet, "/ark:12345/g5-h6j7?info", caddytest.AcceptJSON))
	if rec.Status != 410 || rec.Target != "" || rec.Reason != "at the rights holder's request" ||
		rec.Meta["what"] != "A withdrawn photograph" {
		t.Errorf("tombstone: %+v", rec)
	}
	successor := s.Base + "/ark:12345/g5h6j9"
	plain := s.Get("/ark:12345/g5h6j7?")
	containsAll(t, "ANVL tombstone", plain.Body, "\nwhat: A withdrawn photograph\n", "\nstatus: 410 Gone\n",
		"\nreason: at the rights holder's request\n", "\nsuccessor: "+successor+"\n")
	if strings.Count(plain.Body, "reason:") != 1 || strings.Count(plain.Body, "successor:") != 1 {
		t.Errorf("the reason or successor appears twice:\n%s", plain.Body)
	}
	page := s.Do(http.MethodGet, "/ark:12345/g5h6j7??", caddytest.AcceptHTML)
	containsAll(t, "HTML tombstone", page.Body, `<p class="tombstone">Withdrawn on 2025-01-10: at the rights holder&#39;s request. Replaced by <a href="`+successor+`">`)

	bare := caddytest.DecodeRecord(t, s.Do(http.MethodGet, "/ark:12345/g5h6j8?info", caddytest.AcceptJSON))
	if bare.Status != 410 || bare.Reason != "ark:12345/g5h6j8 has been withdrawn; it will not be assigned again" {
		t.Errorf("tombstone without metadata: %+v", bare)
	}
}

// The page a person's browser gets for a withdrawn ARK says when and why
// it was withdrawn and links to what replaces it, as ?info does; one
// withdrawn without metadata says what the resolver knows.
func TestTombstonePageForPeople(t *testing.T) {
	s := infoSite(t)
	got := s.Do(http.MethodGet, "/ark:12345/g5h6j7", caddytest.AcceptHTML)
	if got.Status != 410 || !strings.HasPrefix(got.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("a browser at a withdrawn ARK: %d %q", got.Status, got.Header.Get("Content-Type"))
	}
	text, links := pageText(t, got.Body)
	for _, want := range []string{"Withdrawn on 2025-01-10: at the rights holder's request.", "Replaced by " + s.Base + "/ark:12345/g5h6j9."} {
		if !strings.Contains(text, want) {
			t.Errorf("the tombstone page does not say %q:\n%s", want, text)
		}
	}
	if !slices.Contains(links, s.Base+"/ark:12345/g5h6j9") || !slices.Contains(links, s.Base+"/ark:12345/g5h6j7?info") {
		t.Errorf("the tombstone page links %q", links)
	}
	bare := s.Do(http.MethodGet, "/ark:12345/g5h6j8", caddytest.AcceptHTML)
	if text, _ := pageText(t, bare.Body); bare.Status != 410 || !strings.Contains(text, "Withdrawn: ark:12345/g5h6j8 has been withdrawn; it will not be assigned again.") || strings.Contains(text, "Replaced by") {
		t.Errorf("the tombstone page without metadata: %d\n%s", bare.Status, text)
	}
}

// pageText returns the text of an HTML page as a parser reads it, spaces
// run together, and the targets of its links.
func pageText(t *testing.T, page string) (string, []string) {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	var links []string
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		switch {
		case n.Type == html.TextNode:
			text.WriteString(n.Data)
		case n.Type == html.ElementNode && (n.Data == "style" || n.Data == "title"):
			return
		case n.Type == html.ElementNode && n.Data == "a":
			for _, a := range n.Attr {
				if a.Key == "href" {
					links = append(links, a.Val)
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return strings.Join(strings.Fields(text.String()), " "), links
}

// A NAAN or shoulder alone describes itself through its policy.
func TestNAANAndShoulderPolicies(t *testing.T) {
	s := infoSite(t)
	for p, want := range map[string]struct{ prefix, statement string }{
		"/ark:12345?info":    {"ark:12345", "Permanent: ARKs under 12345 are never reassigned."},
		"/ark:/12-345/??":    {"ark:12345", "Permanent: ARKs under 12345 are never reassigned."},
		"/ark:12345/q7?info": {"ark:12345/q7", "Reserved: q7 is not yet in use."},
		// t3 is also a template's shoulder: for ?info, the policy wins.
		"/ark:12345/t3?": {"ark:12345/t3", "Temporary: t3 ARKs are for tests."},
	} {
		rec := caddytest.DecodeRecord(t, s.Do(http.MethodGet, p, caddytest.AcceptJSON))
		if rec.Resolution != "policy" || rec.Normalized != want.prefix || rec.URL != s.Base+"/"+want.prefix ||
			rec.Policy == nil || rec.Policy.Prefix != want.prefix || rec.Policy.Statement != want.statement || rec.Status != 0 {
			t.Errorf("%s: %+v", p, rec)
		}
		plain := s.Get(p)
		containsAll(t, p, plain.Body, "erc-support:\n", "what: "+want.statement+"\n", "resolution: policy\n")
	}
	for p, want := range map[string]int{
		"/ark:67890?info":       404, // no policy for that NAAN
		"/ark:12345/w4?info":    404, // nor for that shoulder, which has no entry
		"/ark:12345":            400, // a NAAN alone is still not an ARK
		"/ark:12345/nope?info":  404,
		"/ark:12345/q7abc?info": 404, // covered by a policy, but not assigned
		"/ark:12345/a,b?info":   400,
	} {
		if got := s.Get(p); got.Status != want {
			t.Errorf("%s: got %d %q, want %d", p, got.Status, got.Body, want)
		}
	}
	if got := caddytest.StartSite(t, "ark {\n\tmap ark:12345/x https://e.org/x\n}").Get("/ark:12345?info"); got.Status != 404 ||
		!strings.Contains(got.Body, "ark:12345 has no policy here") {
		t.Errorf("no policies: got %d %q", got.Status, got.Body)
	}
}

// The metadata inflections never reach the target; every other query does,
// so inflections the operator's targets define cannot collide with ?info.
func TestOtherQueriesStillReachTheTarget(t *testing.T) {
	s := infoSite(t)
	for p, want := range map[string]string{
		"/ark:12345/x5efgh?INFO":     "https://repo.example.org/efgh?INFO",
		"/ark:12345/x5efgh?info=1":   "https://repo.example.org/efgh?info=1",
		"/ark:12345/x5efgh?infos":    "https://repo.example.org/efgh?infos",
		"/ark:12345/x5efgh?info&x=1": "https://repo.example.org/efgh?info&x=1",
		"/ark:12345/x5efgh???":       "https://repo.example.org/efgh???",
		"/ark:99166/w66d60p2??":      "https://n2t.net/ark:99166/w66d60p2??",
	} {
		if got := s.Get(p); got.Location != want {
			t.Errorf("%s: got %d %q, want %q", p, got.Status, got.Location, want)
		}
	}
	head := s.Do(http.MethodHead, "/ark:12345/b2c4d6?info", nil)
	if head.Status != 200 || head.Body != "" || head.Header.Get("Vary") != "Accept" || len(caddytest.Links(head)["describes"]) != 1 {
		t.Errorf("HEAD ?info: %d %q %v", head.Status, head.Body, head.Header)
	}
}

// An identifier holding <script> and quotes, with metadata holding markup
// and line breaks, comes out escaped in every format and header.
func TestHostileTextIsEscapedEverywhere(t *testing.T) {
	s := infoSite(t)
	const key = "ark:12345/x%3Cscript%3E%22"
	for _, p := range []string{"/ark:12345/x%3Cscript%3E%22", `/ark:12345/x<script>"`, "/ark:12345/x%3cscript%3e%22"} {
		page := s.Do(http.MethodGet, p+"?info", caddytest.AcceptHTML)
		containsAll(t, p+" HTML", page.Body, "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;",
			"A &#34;quoted&#34; &lt;b&gt;name&lt;/b&gt;", key)
		if strings.Contains(page.Body, "<script") || strings.Contains(page.Body, "<b>") {
			t.Errorf("%s: markup from the metadata reached the HTML:\n%s", p, page.Body)
		}

		rec := caddytest.DecodeRecord(t, s.Do(http.MethodGet, p+"?info", caddytest.AcceptJSON))
		if rec.Normalized != key || rec.Meta["what"] != `<script>alert("x")</script>` || strings.ContainsAny(rec.ID, `<>"`) {
			t.Errorf("%s JSON: %+v", p, rec)
		}

		plain := s.Get(p + "?info")
		for _, l := range testkit.Lines(plain.Body) {
			if strings.HasPrefix(l, "who: injected") || strings.HasPrefix(l, "what: too") || strings.ContainsRune(l, '\r') {
				t.Errorf("%s: a metadata value started a line of its own: %q", p, l)
			}
		}
		containsAll(t, p+" ANVL", plain.Body, "\nnote: line one\n who: injected\n what: too\n", "\nnormalized: "+key+"\n")

		for _, a := range []caddytest.Answer{page, plain, s.Get(p)} {
			parsed, err := testkit.ParseLinkHeader(a.Header.Values("Link"), false)
			if err != nil {
				t.Errorf("%s: %v", p, err)
			}
			for _, l := range parsed {
				if !strings.Contains(l.Target, key) || strings.ContainsAny(l.Target, `<>" `) {
					t.Errorf("%s: Link to %q", p, l.Target)
				}
			}
		}
	}
}

// The operator's own template replaces the HTML page, and a bad one fails
// the load.
func TestInfoTemplateReplacesThePage(t *testing.T) {
	tmpl := testkit.WriteFile(t, "info.html", `<p class="mine">{{.Normalized}} by {{index .Meta "who"}}{{range .Support}} [{{.Name}}={{.Value}}]{{end}}</p>`)
	s := caddytest.StartSite(t, `ark {
		map ark:12345/x5 https://e.org/x {
			who "<i>Me</i>"
			persistence Permanent
		}
		info_template `+tmpl+`
	}`)
	got := s.Do(http.MethodGet, "/ark:12345/x5?info", caddytest.AcceptHTML)
	want := `<p class="mine">ark:12345/x5 by &lt;i&gt;Me&lt;/i&gt; [who=127.0.0.1` + strings.TrimPrefix(s.Base, "http://127.0.0.1") +
		`] [what=Permanent] [when=] [where=]</p>`
	if got.Body != want {
		t.Errorf("got  %s\nwant %s", got.Body, want)
	}
	for body, msg := range map[string]string{
		"ark {\n\tinfo_template " + testkit.WriteFile(t, "bad.html", "{{.Nope") + "\n}": "info_template",
		"ark {\n\tinfo_template /nonexistent/info.html\n}":                              "/nonexistent/info.html",
	} {
		if err := (&caddytest.Site{T: t}).Load(body); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%q: got error %v, want one saying %q", body, err, msg)
		}
	}
}
