package console

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/chromedp/chromedp"
)

// screenshotsEnv names the directory where the browser tests save
// screenshots of the console's pages, as PNG files, when it is set:
// ARK_CONSOLE_SCREENSHOTS=docs/console go test -run TestConsoleInBrowser .
const screenshotsEnv = "ARK_CONSOLE_SCREENSHOTS"

// browser is a headless chromium driving the console of s.
type browser struct {
	t   *testing.T
	s   *caddytest.ConsoleSite
	ctx context.Context
}

func newBrowser(t *testing.T, s *caddytest.ConsoleSite) *browser {
	b := &browser{t: t, s: s, ctx: testkit.Browser(t)}
	b.do("sizing the window", chromedp.EmulateViewport(browserWidth, browserHeight))
	return b
}

// do runs actions, failing the test with what.
func (b *browser) do(what string, actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	testkit.RunBrowser(b.t, b.ctx, what, actions...)
}

// open navigates to a console page and returns the answer's status.
func (b *browser) open(path string) int64 {
	b.t.Helper()
	return b.navigate(chromedp.Navigate(b.s.Base + caddytest.ConsoleUI + path))
}

// navigate runs actions that load a page, waits for it and returns its
// status.
func (b *browser) navigate(actions ...chromedp.Action[chromedp.Void]) int64 {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, time.Minute)
	defer cancel()
	resp, err := chromedp.RunResponse(ctx, actions...)
	if err != nil {
		b.t.Fatalf("loading a page: %v", err)
	}
	return resp.Status
}

// submit clicks the button sel and returns the status of the page it
// leads to.
func (b *browser) submit(sel string) int64 {
	b.t.Helper()
	return b.navigate(chromedp.Click(chromedp.CSS(sel)))
}

// text returns the text of the element sel.
func (b *browser) text(sel string) string {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, time.Minute)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		b.t.Fatalf("reading %s: %v", sel, err)
	}
	return s
}

// expectText fails unless the element sel's text holds want.
func (b *browser) expectText(sel, want string) {
	b.t.Helper()
	if got := b.text(sel); !strings.Contains(got, want) {
		b.t.Errorf("%s: %q, want %q in it", sel, got, want)
	}
}

// location returns the page's address.
func (b *browser) location() string {
	b.t.Helper()
	loc, err := chromedp.Run(b.ctx, chromedp.Location())
	if err != nil {
		b.t.Fatal(err)
	}
	return loc
}

// shot saves a screenshot of the whole page as name.png, when
// screenshotsEnv names a directory.
func (b *browser) shot(name string) {
	b.t.Helper()
	dir := os.Getenv(screenshotsEnv)
	if dir == "" {
		return
	}
	png, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		b.t.Fatal(err)
	}
}

// unlabelled finds the form fields of a page that have no label.
const unlabelled = `[...document.querySelectorAll('input:not([type=hidden]), select, textarea')].filter(e => e.labels.length === 0).map(e => e.name || e.id || e.type)`

// overflowing tells whether the page is wider than the window, which at
// phone width means scrolling sideways to read it.
const overflowing = `document.documentElement.scrollWidth > window.innerWidth`

// phoneWidth is the width, in CSS pixels, of a small phone.
const phoneWidth = 360

// The size of the browser's window otherwise.
const (
	browserWidth  = 1100
	browserHeight = 900
)

// checkPlain fails unless every field of the page has a label and the
// page fits a phone's width; it saves a screenshot as name, and one at
// phone width of the pages in phoneShots.
func (b *browser) checkPlain(name string) {
	b.t.Helper()
	fields, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](unlabelled))
	if err != nil {
		b.t.Fatal(err)
	}
	if len(fields) > 0 {
		b.t.Errorf("%s: fields without a label: %q", name, fields)
	}
	b.shot(name)
	b.do("narrowing the window", chromedp.EmulateViewport(phoneWidth, 740))
	defer b.do("widening the window", chromedp.EmulateViewport(browserWidth, browserHeight))
	wide, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](overflowing))
	if err != nil {
		b.t.Fatal(err)
	}
	if wide {
		b.t.Errorf("%s: wider than a phone's %dpx", name, phoneWidth)
	}
	if phoneShots[name] {
		b.shot(name + "-phone")
	}
}

// phoneShots are the pages whose screenshot is also taken at phone width.
var phoneShots = map[string]bool{"identifier": true, "search": true}

// signIn signs in with the test key name, by keyboard: the key typed
// into its field and Enter.
func (b *browser) signIn(name string) {
	b.t.Helper()
	if status := b.open(""); status != http.StatusOK || !strings.HasSuffix(b.location(), caddytest.ConsoleUI+"signin") {
		b.t.Fatalf("the front page, signed out: %d at %s, want the sign-in page", status, b.location())
	}
	b.checkPlain("signin")
	if status := b.navigate(chromedp.SendKeys(chromedp.CSS(`input[type=password][name=key]`), name+"-secret\r")); status != http.StatusOK {
		b.t.Fatalf("signing in: %d", status)
	}
	b.expectText("form.signout", "Signed in as "+name)
}

func TestConsoleInBrowser(t *testing.T) {
	s := caddytest.StartConsoleSite(t, "ui", "stats")
	seedStatistics(t, s)
	s.Call("PUT", "/id/ark:12345/x5one", "editor", `{"target": "https://old.example.org/one", "meta": {"who": "A. Curator", "what": "A map"}}`)
	s.Call("PATCH", "/id/ark:12345/x5one", "editor", `{"meta": {"when": "1901"}}`, "Content-Type", "application/merge-patch+json")
	s.Call("PUT", "/id/ark:12345/x5two", "editor", `{"target": "https://old.example.org/two"}`)
	b := newBrowser(t, s)
	for _, id := range []string{"x5one", "x5one", "x5two", "x5lost"} {
		s.Get("/ark:12345/" + id)
	}
	b.signIn("editor")
	b.expectText("figure.chart", "Solid: found something.")
	b.checkPlain("home")

	// Search from the front page, by the text of targets.
	b.do("typing a search", chromedp.SendKeys(chromedp.ID("home-q"), "old.example"))
	if status := b.submit(`form[action$="/search"] button`); status != http.StatusOK {
		t.Fatalf("searching: %d", status)
	}
	if rows := b.text("table tbody"); !strings.Contains(rows, "ark:12345/x5one") || !strings.Contains(rows, "ark:12345/x5two") {
		t.Errorf("the search found: %q", rows)
	}
	b.checkPlain("search")
	b.open("")

	// Open an identifier from the front page.
	b.do("typing an identifier", chromedp.SendKeys(chromedp.ID("open-id"), "ark:12345/x5one"))
	if status := b.submit(`form[action$="/open"] button`); status != http.StatusOK {
		t.Fatalf("opening ark:12345/x5one: %d", status)
	}
	b.expectText("dl.fields", "https://old.example.org/one")
	b.expectText("main", "A. Curator")
	b.checkPlain("identifier")

	// Edit its target and one metadata element; the others stay.
	if status := b.submit(`a[href$="/edit/ark:12345/x5one"]`); status != http.StatusOK {
		t.Fatalf("the edit form: %d", status)
	}
	b.do("editing",
		chromedp.SetValue(chromedp.ID("target"), "https://new.example.org/one"),
		chromedp.SetValue(chromedp.CSS(`input[value="A map"]`), "A map of the coast"),
		chromedp.SendKeys(chromedp.ID("meta_name_3"), "where"),
		chromedp.SendKeys(chromedp.ID("meta_value_3"), "Brest"),
	)
	b.checkPlain("edit")
	if status := b.submit(`form.stack button[type=submit]`); status != http.StatusOK {
		t.Fatalf("saving: %d", status)
	}
	b.expectText(".notice", "Saved.")
	bound := s.Lookup("ark:12345/x5one").Binding
	wantMeta := map[string]string{"who": "A. Curator", "what": "A map of the coast", "when": "1901", "where": "Brest"}
	if bound.Target != "https://new.example.org/one" || fmt.Sprint(bound.Meta) != fmt.Sprint(wantMeta) || bound.By != "editor" {
		t.Errorf("after the edit: %s %v by %s, want the new target and %v", bound.Target, bound.Meta, bound.By, wantMeta)
	}
	b.expectText("table", "target https://old.example.org/one → https://new.example.org/one")

	// Withdraw it with a reason.
	if status := b.submit(`a[href$="/withdraw/ark:12345/x5one"]`); status != http.StatusOK {
		t.Fatalf("the withdraw form: %d", status)
	}
	b.checkPlain("withdraw")
	b.do("giving a reason", chromedp.SendKeys(chromedp.ID("reason"), "The map was lost in 1944."))
	if status := b.submit(`button.danger`); status != http.StatusOK {
		t.Fatalf("withdrawing: %d", status)
	}
	b.expectText(".notice", "Withdrawn.")
	if got := s.Get("/ark:12345/x5one"); got.Status != http.StatusGone {
		t.Errorf("the withdrawn identifier answers %d: %s", got.Status, got.Body)
	}
	if r := s.Lookup("ark:12345/x5one"); r.Binding.Reason != "The map was lost in 1944." || r.Binding.By != "editor" {
		t.Errorf("withdrawn: reason %q by %s", r.Binding.Reason, r.Binding.By)
	}

	b.open("import")
	b.checkPlain("import")

	// Mint two names bound to a target built from each.
	b.open("mint")
	b.do("filling the mint form",
		chromedp.SetValue(chromedp.ID("n"), "2"),
		chromedp.SendKeys(chromedp.ID("mint-target"), "https://new.example.org/{name}"),
	)
	if status := b.submit(`form.stack button[type=submit]`); status != http.StatusCreated {
		t.Fatalf("minting: %d", status)
	}
	b.checkPlain("mint")
	minted := strings.Fields(b.text("ul.ids"))
	if len(minted) != 2 {
		t.Fatalf("minted %q, want 2 names", minted)
	}
	for _, id := range minted {
		name := strings.TrimPrefix(id, "ark:12345/")
		if r := s.Lookup(id); r == nil || r.Binding.Target != "https://new.example.org/"+name || !strings.HasPrefix(name, "x5") {
			t.Errorf("minted %s: %+v", id, r)
		}
	}

	// Retarget what starts with old.example.org: preview, then confirm.
	b.open("retarget")
	b.do("filling the retarget form",
		chromedp.SendKeys(chromedp.ID("from"), "https://old.example.org/"),
		chromedp.SendKeys(chromedp.ID("to"), "https://moved.example.org/"),
		chromedp.SendKeys(chromedp.ID("rt-prefix"), "ark:12345/x5"),
	)
	if status := b.submit(`form.stack button[type=submit]`); status != http.StatusOK {
		t.Fatalf("previewing: %d", status)
	}
	b.expectText("#preview-h + p", "This changes the targets of 1 identifier")
	b.expectText("table", "https://moved.example.org/two")
	b.checkPlain("retarget")
	if r := s.Lookup("ark:12345/x5two"); r.Binding.Target != "https://old.example.org/two" {
		t.Fatalf("the preview changed the target: %s", r.Binding.Target)
	}
	if status := b.submit(`button.danger`); status != http.StatusOK {
		t.Fatalf("confirming: %d", status)
	}
	b.expectText(".notice", "Changed 1 target in batch")
	if r := s.Lookup("ark:12345/x5two"); r.Binding.Target != "https://moved.example.org/two" {
		t.Errorf("after confirming: %s", r.Binding.Target)
	}

	// The feed of recent changes has all of them.
	b.open("changes")
	b.expectText("table", "target https://old.example.org/two → https://moved.example.org/two")
	b.expectText("table", "withdrawn: The map was lost in 1944.")
	b.checkPlain("changes")

	// A form on another site, posting to the console: the browser sends
	// no cookie with it, and the console refuses it.
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<!doctype html><form method="post" action="%s%sedit/ark:12345/x5two">
<input type="hidden" name="version" value="2"><input type="hidden" name="status" value="302">
<input type="hidden" name="target" value="https://attacker.example/"><button>Win a prize</button></form>`, s.Base, caddytest.ConsoleUI)
	}))
	defer evil.Close()
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(evil.URL, "http://"))
	b.navigate(chromedp.Navigate("http://localhost:" + port + "/"))
	if status := b.submit("button"); status != http.StatusForbidden {
		t.Errorf("the cross-site post: %d, want 403", status)
	}
	if r := s.Lookup("ark:12345/x5two"); r.Binding.Target != "https://moved.example.org/two" {
		t.Errorf("the cross-site post changed the target: %s", r.Binding.Target)
	}

	// Sign out.
	b.open("")
	if status := b.submit(`form.signout button`); status != http.StatusOK {
		t.Fatalf("signing out: %d", status)
	}
	b.expectText(".notice", "You are signed out.")
	b.open("")
	if !strings.HasSuffix(b.location(), caddytest.ConsoleUI+"signin") {
		t.Errorf("after signing out, the front page is at %s, want the sign-in page", b.location())
	}
}
