package console

import (
	"html"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/internal/visible"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/table"
)

// formValues are the values of a page's form fields, which hold what
// they hold: a browser sends them back as they are.
var formValues = regexp.MustCompile(`<input type="[a-z]+" (?:id="[^"]*" )?name="([^"]+)" value="([^"]*)"`)

// rawInvisible returns the characters of body, outside form field
// values, that do not show as themselves.
func rawInvisible(body string) []string {
	var raw []string
	for _, c := range formValues.ReplaceAllString(body, "") {
		if visible.Invisible(c) && c != '\u00a0' {
			raw = append(raw, string(c))
		}
	}
	return raw
}

// The console shows identifiers, targets, metadata, reasons and the
// history by the rule ?info shows them by: each character that does not
// show as itself marked, in an isolated run, never raw (issue 28, item
// 4). A target stored raw before the API refused such targets is shown
// percent-encoded in the edit form, which saves it so.
func TestConsoleShowsInvisibleCharactersVisibly(t *testing.T) {
	s := &caddytest.ConsoleSite{APISite: &caddytest.APISite{
		DB:    filepath.Join(t.TempDir(), "ark.db"),
		Table: testkit.WriteTable(t, []table.Entry{{ID: "ark:12345/t1", Target: "https://table.example.org/t1"}}),
	}}
	meta := map[string]string{"what": "Invoice\u202Efdp.exe", "who": "A\u200Bdmin"}
	caddytest.StoreAsBefore(t, s.DB,
		store.Binding{Key: "ark:12345/x5v", Target: "https://repo.example.org/a", Status: http.StatusFound},
		store.Binding{Key: "ark:12345/x5v", Target: testkit.RawBidiTarget, Status: http.StatusFound, Meta: meta})
	s.Site = caddytest.StartSite(t, s.Body(caddytest.APIKeys, "ui"))
	if got := s.Call("POST", "/withdraw/ark:12345/x5g", "editor", `{"reason": "lost \u2066in transit"}`); got.Status != http.StatusCreated {
		t.Fatalf("withdraw: %d %s", got.Status, got.Body)
	}
	u := s.SignIn("editor")

	const shownTarget = `<bdi>https://repo.example.org/<span class="ctl">U+202E</span>gpj.exe</bdi>`
	const shownWhat = `<bdi>Invoice<span class="ctl">U+202E</span>fdp.exe</bdi>`
	for _, page := range []struct {
		path   string
		status int
		want   []string
	}{
		{"id/ark:12345/x5v", http.StatusOK, []string{
			`rel="noopener noreferrer">` + shownTarget + `</a>`,
			`<dt>what</dt><dd>` + shownWhat + `</dd>`,
			`<dt>who</dt><dd><bdi>A<span class="ctl">U+200B</span>dmin</bdi></dd>`,
			`<span class="change">target https://repo.example.org/a → ` + shownTarget + `</span>`,
			`<span class="change">what: ` + shownWhat + `</span>`,
		}},
		{"id/ark:12345/x5g", http.StatusOK, []string{
			`<dd><bdi>lost <span class="ctl">U+2066</span>in transit</bdi></dd>`,
		}},
		{"edit/ark:12345/x5v", http.StatusOK, []string{
			`name="target" value="https://repo.example.org/%E2%80%AEgpj.exe"`,
			`they are shown here percent-encoded, as a redirect sends them, and saved so.`,
			`<span class="hint">Shown: ` + shownWhat + `</span>`,
		}},
		{"withdraw/ark:12345/x5v", http.StatusOK, []string{`It now leads to <code>` + shownTarget + `</code>.`}},
		{"changes", http.StatusOK, []string{
			`<span class="change">target https://repo.example.org/a → ` + shownTarget + `</span>`,
			`<span class="change">withdrawn: <bdi>lost <span class="ctl">U+2066</span>in transit</bdi></span>`,
		}},
		{"search?q=gpj", http.StatusOK, []string{`<span class="cell-label">Target: </span>` + shownTarget + `</td>`}},
		// An identifier as typed, not stored: its normal form is ASCII,
		// but the page names it as asked for.
		{"id/ark:12345/x5z%E2%80%8Bw", http.StatusNotFound, []string{
			`<title>ark:12345/x5z[U&#43;200B]w · ARK console</title>`,
			`<h1><bdi>ark:12345/x5z<span class="ctl">U+200B</span>w</bdi></h1>`,
		}},
	} {
		got := u.Get(page.path)
		if got.Status != page.status {
			t.Errorf("%s: %d, want %d: %s", page.path, got.Status, page.status, got.Body)
			continue
		}
		if raw := rawInvisible(got.Body); len(raw) > 0 {
			t.Errorf("%s shows %q raw:\n%s", page.path, raw, got.Body)
		}
		for _, w := range page.want {
			if !strings.Contains(got.Body, w) {
				t.Errorf("%s does not show\n%s\nin:\n%s", page.path, w, got.Body)
			}
		}
	}

	// In a browser, the target reads as it is, the override named, and
	// the metadata with it.
	b := newBrowser(t, s)
	b.signIn("editor")
	if status := b.open("id/ark:12345/x5v"); status != http.StatusOK {
		t.Fatalf("the identifier's page in the browser: %d", status)
	}
	b.expectText("main", "https://repo.example.org/U+202Egpj.exe")
	b.expectText("main", "InvoiceU+202Efdp.exe")
	if text := b.text("body"); strings.ContainsFunc(text, visible.Invisible) {
		t.Errorf("the browser shows raw invisible characters: %q", text)
	}

	// The edit form sent back as it is mends the stored target: the same
	// address, percent-encoded; the metadata keep their values.
	form := url.Values{"status": {"302"}}
	for _, m := range formValues.FindAllStringSubmatch(u.Get("edit/ark:12345/x5v").Body, -1) {
		form.Set(m[1], html.UnescapeString(m[2]))
	}
	if got := u.Post("edit/ark:12345/x5v", form); got.Status != http.StatusSeeOther {
		t.Fatalf("saving the edit form: %d %s", got.Status, got.Body)
	}
	saved := s.Lookup("ark:12345/x5v").Binding
	if saved.Target != "https://repo.example.org/%E2%80%AEgpj.exe" || saved.Meta["what"] != meta["what"] || saved.Meta["who"] != meta["who"] {
		t.Errorf("after saving the edit form: %q %q", saved.Target, saved.Meta)
	}
}
