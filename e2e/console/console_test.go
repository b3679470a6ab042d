package console

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
)

func TestConsoleSignIn(t *testing.T) {
	s := caddytest.StartConsoleSite(t, "ui")
	u := s.NewUser()
	if got := u.Get(""); got.Status != http.StatusSeeOther || got.Location != caddytest.ConsoleUI+"signin" {
		t.Fatalf("front page before signing in: %d %s, want 303 to the sign-in page", got.Status, got.Location)
	}
	if got := s.Get("/api/ark/ui"); got.Status != http.StatusPermanentRedirect || got.Location != caddytest.ConsoleUI {
		t.Errorf("/api/ark/ui: %d %s, want 308 to %s", got.Status, got.Location, caddytest.ConsoleUI)
	}
	page := u.Get("signin")
	for _, want := range []string{`<input type="password" id="key" name="key"`, `<label for="key">`, "Content-Security-Policy"} {
		if !strings.Contains(page.Body, want) && page.Header.Get(want) == "" {
			t.Errorf("sign-in page: no %s", want)
		}
	}
	token := caddytest.CSRFValue.FindStringSubmatch(page.Body)[1]

	got := u.Post("signin", url.Values{"csrf": {token}, "key": {"wrong-secret"}})
	if got.Status != http.StatusUnauthorized || !strings.Contains(got.Body, "not known here") {
		t.Errorf("a wrong key: %d, want 401 saying so: %s", got.Status, got.Body)
	}
	// A sign-in posted from elsewhere has no form token of this browser.
	if got := s.NewUser().Post("signin", url.Values{"csrf": {token}, "key": {"editor-secret"}}); got.Status != http.StatusForbidden {
		t.Errorf("a sign-in without the form's cookie: %d, want 403", got.Status)
	}

	got = u.Post("signin", url.Values{"csrf": {token}, "key": {"editor-secret"}})
	if got.Status != http.StatusSeeOther || got.Location != caddytest.ConsoleUI {
		t.Fatalf("signing in: %d %s", got.Status, got.Location)
	}
	var session *http.Cookie
	for _, c := range (&http.Response{Header: got.Header}).Cookies() {
		if c.Name == "ark_console" {
			session = c
		}
	}
	switch {
	case session == nil:
		t.Fatal("no session cookie")
	case !session.HttpOnly || session.SameSite != http.SameSiteStrictMode || session.Secure || session.Path != caddytest.ConsoleUI:
		t.Errorf("session cookie: HttpOnly %t, SameSite %v, Secure %t (on plain HTTP), Path %s; want HttpOnly, Strict, not Secure, %s", session.HttpOnly, session.SameSite, session.Secure, session.Path, caddytest.ConsoleUI)
	case session.MaxAge != int((8*time.Hour)/time.Second):
		t.Errorf("session cookie: Max-Age %d, want 8h", session.MaxAge)
	case strings.Contains(session.Value, "editor-secret") || strings.Contains(session.Value, caddytest.KeyHash("editor-secret")):
		t.Errorf("session cookie holds the key or its hash: %s", session.Value)
	}
	home := u.Get("")
	if home.Status != http.StatusOK || !strings.Contains(home.Body, "Signed in as <strong>editor</strong>") || !strings.Contains(home.Body, "write:ark:12345") {
		t.Errorf("front page: %d %s", home.Status, home.Body)
	}
	if !strings.Contains(home.Body, ">Sign out</button>") {
		t.Error("front page: no Sign out button")
	}
}

func TestConsoleRefusesForgedPosts(t *testing.T) {
	s := caddytest.StartConsoleSite(t, "ui")
	s.Call("PUT", "/id/ark:12345/x5one", "editor", `{"target": "https://old.example.org/one"}`)
	editor := s.SignIn("editor")
	reader := s.SignIn("reader")
	token := editor.Token("edit/ark:12345/x5one")
	form := func(csrf string) url.Values {
		return url.Values{"csrf": {csrf}, "version": {"1"}, "target": {"https://new.example.org/one"}, "status": {"302"}, "passthrough": {"on"}}
	}
	for _, c := range []struct {
		what   string
		form   url.Values
		header []string
	}{
		{"no token", form(""), nil},
		{"a token of no session", form(base64.RawURLEncoding.EncodeToString([]byte("0123456789abcdef0123456789abcdef"))), nil},
		{"the reader's session's token", form(reader.Token("")), nil},
		{"another site's Origin", form(token), []string{"Origin", "http://attacker.example"}},
		{"a cross-site fetch", form(token), []string{"Sec-Fetch-Site", "cross-site"}},
		{"a same-site fetch from another host", form(token), []string{"Sec-Fetch-Site", "same-site"}},
	} {
		got := editor.Post("edit/ark:12345/x5one", c.form, c.header...)
		if got.Status != http.StatusForbidden {
			t.Errorf("%s: %d, want 403: %s", c.what, got.Status, got.Body)
		}
	}
	if b := s.Lookup("ark:12345/x5one").Binding; b.Target != "https://old.example.org/one" {
		t.Fatalf("a forged post changed the target: %s", b.Target)
	}
	// The same form with its token and the browser's headers is done.
	got := editor.Post("edit/ark:12345/x5one", form(token), "Origin", s.Base, "Sec-Fetch-Site", "same-origin")
	if got.Status != http.StatusSeeOther {
		t.Fatalf("the genuine form: %d %s", got.Status, got.Body)
	}
	if b := s.Lookup("ark:12345/x5one").Binding; b.Target != "https://new.example.org/one" || b.By != "editor" {
		t.Errorf("after the genuine form: %s by %s", b.Target, b.By)
	}
}

func TestConsoleAppliesTheKeysScopes(t *testing.T) {
	s := caddytest.StartConsoleSite(t, "ui")
	s.Call("PUT", "/id/ark:12345/x5one", "editor", `{"target": "https://old.example.org/one"}`)
	reader := s.SignIn("reader")
	page := reader.Get("id/ark:12345/x5one")
	if page.Status != http.StatusOK || !strings.Contains(page.Body, "https://old.example.org/one") || strings.Contains(page.Body, ">Edit</a>") {
		t.Errorf("the reader's view: %d, want the target and no Edit link: %s", page.Status, page.Body)
	}
	token := reader.Token("")
	got := reader.Post("edit/ark:12345/x5one", url.Values{"csrf": {token}, "version": {"1"}, "target": {"https://new.example.org/"}, "status": {"302"}})
	if got.Status != http.StatusForbidden || !strings.Contains(got.Body, "may not write") {
		t.Errorf("the reader's edit: %d, want 403 from the key's scopes: %s", got.Status, got.Body)
	}
	got = reader.Post("withdraw/ark:12345/x5one", url.Values{"csrf": {token}, "version": {"1"}, "reason": {"no"}})
	if got.Status != http.StatusForbidden {
		t.Errorf("the reader's withdrawal: %d, want 403: %s", got.Status, got.Body)
	}
	if b := s.Lookup("ark:12345/x5one").Binding; b.Target != "https://old.example.org/one" || b.Status != 302 {
		t.Errorf("the reader changed it: %+v", b)
	}
	if got := reader.Get("mint"); !strings.Contains(got.Body, "may not mint under any shoulder") {
		t.Errorf("the reader's mint page offers shoulders: %s", got.Body)
	}

	x5 := s.SignIn("x5")
	mintPage := x5.Get("mint")
	if !strings.Contains(mintPage.Body, "<option selected>ark:12345/x5</option>") && !strings.Contains(mintPage.Body, "<option>ark:12345/x5</option>") || strings.Contains(mintPage.Body, "ark:12345/y7") {
		t.Errorf("x5's mint page offers other shoulders than x5: %s", mintPage.Body)
	}
	got = x5.Post("mint", url.Values{"csrf": {x5.Token("mint")}, "shoulder": {"ark:12345/y7"}, "n": {"1"}})
	if got.Status != http.StatusBadRequest {
		t.Errorf("x5 minting under y7: %d, want 400", got.Status)
	}
	// Another shoulder's identifier is out of x5's scope, even to edit.
	got = x5.Post("edit/ark:12345/y7abc", url.Values{"csrf": {x5.Token("mint")}, "version": {"0"}, "target": {"https://x.example.org/"}, "status": {"302"}})
	if got.Status != http.StatusForbidden {
		t.Errorf("x5 binding under y7: %d, want 403: %s", got.Status, got.Body)
	}
	s.ExpectUnbound("ark:12345/y7abc")
}

func TestConsoleCookieOfAnotherKey(t *testing.T) {
	secretA := testkit.WriteFile(t, "a.secret", strings.Repeat("a", 40))
	secretB := testkit.WriteFile(t, "b.secret", strings.Repeat("b", 40))
	s := caddytest.StartConsoleSite(t, "ui {\n\t\t\tsecret_file "+secretA+"\n\t\t}")
	editor := s.SignIn("editor")
	cookie := editor.Cookie()
	token := editor.Token("")
	if got := s.WithCookie(http.MethodGet, "", cookie, nil); got.Status != http.StatusOK {
		t.Fatalf("the editor's own cookie: %d", got.Status)
	}
	// The cookie names its key: naming another instead breaks its
	// signature, which covers the name.
	parts := strings.SplitN(cookie, ".", 2)
	for _, name := range []string{"reader", "x5"} {
		forged := base64.RawURLEncoding.EncodeToString([]byte(name)) + "." + parts[1]
		s.ExpectSignedOut("the editor's cookie renamed to "+name, forged, token)
	}
	s.ExpectSignedOut("a cookie that is not one", "editor", token)

	// A cookie signed with another secret (another site, or this one
	// before its secret was replaced) is refused.
	s.Reload(caddytest.APIKeys, "ui {\n\t\t\tsecret_file "+secretB+"\n\t\t}")
	s.ExpectSignedOut("a cookie signed with another secret", cookie, token)
}

func TestConsoleSessionEndsWithItsKey(t *testing.T) {
	s := caddytest.StartConsoleSite(t, "ui")
	x5 := s.SignIn("x5")
	editor := s.SignIn("editor")
	x5Cookie, x5Token := x5.Cookie(), x5.Token("")
	editorCookie, editorToken := editor.Cookie(), editor.Token("")

	// x5 is removed: its session ends with the reload; the editor's goes on.
	withoutX5 := strings.Replace(caddytest.APIKeys, "key x5 %x5 write:ark:12345/x5", "", 1)
	s.Reload(withoutX5, "ui")
	s.ExpectSignedOut("a removed key's cookie", x5Cookie, x5Token)
	if got := s.WithCookie(http.MethodGet, "", editorCookie, nil); got.Status != http.StatusOK {
		t.Fatalf("the editor's session did not outlive the reload: %d", got.Status)
	}

	// The editor's key is given a new secret under the same name: the
	// sessions of the old secret end.
	s.Reload(strings.Replace(withoutX5, "key editor %editor", "key editor "+caddytest.KeyHash("editor-new-secret"), 1), "ui")
	s.ExpectSignedOut("the cookie of a key whose secret was replaced", editorCookie, editorToken)
}

func TestConsoleSignOut(t *testing.T) {
	s := caddytest.StartConsoleSite(t, "ui")
	u := s.SignIn("editor")
	cookie, token := u.Cookie(), u.Token("")
	got := u.Post("signout", url.Values{"csrf": {token}})
	if got.Status != http.StatusSeeOther || got.Location != caddytest.ConsoleUI+"signin?out=1" {
		t.Fatalf("signing out: %d %s", got.Status, got.Location)
	}
	if page := u.Get("signin?out=1"); !strings.Contains(page.Body, "You are signed out") {
		t.Errorf("after signing out: %s", page.Body)
	}
	if got := u.Get(""); got.Status != http.StatusSeeOther {
		t.Errorf("the browser is still signed in: %d", got.Status)
	}
	// A copy of the cookie kept from before is refused too.
	s.ExpectSignedOut("a signed-out session's cookie", cookie, token)
}

func TestConsoleSessionExpires(t *testing.T) {
	s := caddytest.StartConsoleSite(t, "ui {\n\t\t\tsession 1s\n\t\t}")
	u := s.SignIn("editor")
	cookie, token := u.Cookie(), u.Token("")
	// The server, not only the browser, ends it: the cookie is sent on.
	testkit.WaitFor(t, "the session to expire", func() bool {
		return s.WithCookie(http.MethodGet, "", cookie, nil).Status == http.StatusSeeOther
	})
	s.ExpectSignedOut("an expired session's cookie", cookie, token)
}

func TestConsoleSlowsRepeatedFailedSignIns(t *testing.T) {
	s := caddytest.StartConsoleSite(t, "ui")
	u := s.NewUser()
	token := u.Token("signin")
	for i := range 3 {
		if got := u.Post("signin", url.Values{"csrf": {token}, "key": {"guess-" + strconv.Itoa(i)}}); got.Status != http.StatusUnauthorized {
			t.Fatalf("failure %d: %d, want 401", i+1, got.Status)
		}
	}
	// Even the right key is not checked until the client has waited.
	got := u.Post("signin", url.Values{"csrf": {token}, "key": {"editor-secret"}})
	if got.Status != http.StatusTooManyRequests || got.Header.Get("Retry-After") == "" || !strings.Contains(got.Body, "Too many failed sign-ins") {
		t.Errorf("after 3 failures: %d Retry-After %q, want 429 with Retry-After: %s", got.Status, got.Header.Get("Retry-After"), got.Body)
	}
	if got := u.Get(""); got.Status != http.StatusSeeOther {
		t.Errorf("signed in while slowed down: %d", got.Status)
	}
}

func TestConsoleImport(t *testing.T) {
	s := caddytest.StartConsoleSite(t, "ui")
	u := s.SignIn("editor")
	token := u.Token("import")
	got := u.Upload(token, "auto", "moved.csv", "id,target\nark:12345/x5a,https://a.example.org/\nark:12345/x5b,https://b.example.org/\n")
	if got.Status != http.StatusOK || !strings.Contains(got.Body, "Imported: 2 new in the store") {
		t.Fatalf("importing a CSV file: %d %s", got.Status, got.Body)
	}
	if r := s.Lookup("ark:12345/x5b"); r == nil || r.Binding.Target != "https://b.example.org/" || r.Binding.By != "editor" {
		t.Errorf("after the import: %+v", r)
	}
	// EZID's CSV download, its elements kept (a reserved identifier is
	// counted: the console imports a table).
	got = u.Upload(token, "auto", "ezid.csv", "_id,_target,_status,erc.who\nark:/12345/x5g,https://g.example.org/,public,Example Museum\nark:/12345/x5h,https://h.example.org/,reserved,\n")
	if got.Status != http.StatusOK || !strings.Contains(got.Body, "Imported: 1 new in the store") {
		t.Fatalf("importing EZID's CSV: %d %s", got.Status, got.Body)
	}
	if r := s.Lookup("ark:12345/x5g"); r == nil || r.Binding.Meta["erc.who"] != "Example Museum" {
		t.Errorf("after EZID's CSV: %+v", r)
	}
	// A bad line imports nothing, and is shown.
	got = u.Upload(token, "csv", "bad.csv", "ark:12345/x5c,https://c.example.org/\nark:12345/x5d,not a target\n")
	if got.Status != http.StatusBadRequest || !strings.Contains(got.Body, "bad.csv:2:") || !strings.Contains(got.Body, "nothing was imported") {
		t.Errorf("a bad line: %d %s", got.Status, got.Body)
	}
	s.ExpectUnbound("ark:12345/x5c")
	// A table file, whose entry is outside the key's scope.
	x5 := s.SignIn("x5")
	got = x5.Upload(x5.Token("import"), "json", "t.json", `{"entries": [{"id": "ark:12345/y7e", "target": "https://e.example.org/"}]}`)
	if got.Status != http.StatusForbidden || !strings.Contains(got.Body, "may not write ark:12345/y7e") {
		t.Errorf("x5's import under y7: %d %s", got.Status, got.Body)
	}
	s.ExpectUnbound("ark:12345/y7e")
	// Without the form's token nothing is read.
	got = u.Upload("", "csv", "x.csv", "ark:12345/x5f,https://f.example.org/\n")
	if got.Status != http.StatusForbidden {
		t.Errorf("an upload without token: %d", got.Status)
	}
	s.ExpectUnbound("ark:12345/x5f")
}

func TestConsoleConfig(t *testing.T) {
	s := caddytest.StartConsoleSite(t, "")
	if got := s.Get("/api/ark/ui/"); got.Status != http.StatusUnauthorized {
		t.Errorf("without ui, /api/ark/ui/ is the API's: %d %s", got.Status, got.Body)
	}
	short := testkit.WriteFile(t, "short.secret", "too short")
	for _, c := range []struct{ ui, want string }{
		{"ui {\n\t\t\tsession 0s\n\t\t}", "session"},
		{"ui {\n\t\t\tcolour blue\n\t\t}", `unknown subdirective "colour"`},
		{"ui yes", "ui takes no arguments"},
		{"ui\n\t\t\tui", "given twice"},
		{"ui {\n\t\t\tsecret_file " + short + "\n\t\t}", "a secret has at least 32"},
	} {
		err := s.Load(s.Body(caddytest.APIKeys, c.ui))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an error saying %q", c.ui, err, c.want)
		}
	}
}
