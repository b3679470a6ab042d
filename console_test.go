package ark

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
)

func TestConsoleSignIn(t *testing.T) {
	s := startConsoleSite(t, "ui")
	u := s.newUser()
	if got := u.get(""); got.status != http.StatusSeeOther || got.location != consoleUI+"signin" {
		t.Fatalf("front page before signing in: %d %s, want 303 to the sign-in page", got.status, got.location)
	}
	if got := s.get("/api/ark/ui"); got.status != http.StatusPermanentRedirect || got.location != consoleUI {
		t.Errorf("/api/ark/ui: %d %s, want 308 to %s", got.status, got.location, consoleUI)
	}
	page := u.get("signin")
	for _, want := range []string{`<input type="password" id="key" name="key"`, `<label for="key">`, "Content-Security-Policy"} {
		if !strings.Contains(page.body, want) && page.header.Get(want) == "" {
			t.Errorf("sign-in page: no %s", want)
		}
	}
	token := csrfValue.FindStringSubmatch(page.body)[1]

	got := u.post("signin", url.Values{"csrf": {token}, "key": {"wrong-secret"}})
	if got.status != http.StatusUnauthorized || !strings.Contains(got.body, "not known here") {
		t.Errorf("a wrong key: %d, want 401 saying so: %s", got.status, got.body)
	}
	// A sign-in posted from elsewhere has no form token of this browser.
	if got := s.newUser().post("signin", url.Values{"csrf": {token}, "key": {"editor-secret"}}); got.status != http.StatusForbidden {
		t.Errorf("a sign-in without the form's cookie: %d, want 403", got.status)
	}

	got = u.post("signin", url.Values{"csrf": {token}, "key": {"editor-secret"}})
	if got.status != http.StatusSeeOther || got.location != consoleUI {
		t.Fatalf("signing in: %d %s", got.status, got.location)
	}
	var session *http.Cookie
	for _, c := range (&http.Response{Header: got.header}).Cookies() {
		if c.Name == "ark_console" {
			session = c
		}
	}
	switch {
	case session == nil:
		t.Fatal("no session cookie")
	case !session.HttpOnly || session.SameSite != http.SameSiteStrictMode || session.Secure || session.Path != consoleUI:
		t.Errorf("session cookie: HttpOnly %t, SameSite %v, Secure %t (on plain HTTP), Path %s; want HttpOnly, Strict, not Secure, %s", session.HttpOnly, session.SameSite, session.Secure, session.Path, consoleUI)
	case session.MaxAge != int((8*time.Hour)/time.Second):
		t.Errorf("session cookie: Max-Age %d, want 8h", session.MaxAge)
	case strings.Contains(session.Value, "editor-secret") || strings.Contains(session.Value, keyHash("editor-secret")):
		t.Errorf("session cookie holds the key or its hash: %s", session.Value)
	}
	home := u.get("")
	if home.status != http.StatusOK || !strings.Contains(home.body, "Signed in as <strong>editor</strong>") || !strings.Contains(home.body, "write:ark:12345") {
		t.Errorf("front page: %d %s", home.status, home.body)
	}
	if !strings.Contains(home.body, ">Sign out</button>") {
		t.Error("front page: no Sign out button")
	}
}

func TestConsoleRefusesForgedPosts(t *testing.T) {
	s := startConsoleSite(t, "ui")
	s.call("PUT", "/id/ark:12345/x5one", "editor", `{"target": "https://old.example.org/one"}`)
	editor := s.signIn("editor")
	reader := s.signIn("reader")
	token := editor.token("edit/ark:12345/x5one")
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
		{"the reader's session's token", form(reader.token("")), nil},
		{"another site's Origin", form(token), []string{"Origin", "http://attacker.example"}},
		{"a cross-site fetch", form(token), []string{"Sec-Fetch-Site", "cross-site"}},
		{"a same-site fetch from another host", form(token), []string{"Sec-Fetch-Site", "same-site"}},
	} {
		got := editor.post("edit/ark:12345/x5one", c.form, c.header...)
		if got.status != http.StatusForbidden {
			t.Errorf("%s: %d, want 403: %s", c.what, got.status, got.body)
		}
	}
	if b := s.lookup("ark:12345/x5one").Binding; b.Target != "https://old.example.org/one" {
		t.Fatalf("a forged post changed the target: %s", b.Target)
	}
	// The same form with its token and the browser's headers is done.
	got := editor.post("edit/ark:12345/x5one", form(token), "Origin", s.base, "Sec-Fetch-Site", "same-origin")
	if got.status != http.StatusSeeOther {
		t.Fatalf("the genuine form: %d %s", got.status, got.body)
	}
	if b := s.lookup("ark:12345/x5one").Binding; b.Target != "https://new.example.org/one" || b.By != "editor" {
		t.Errorf("after the genuine form: %s by %s", b.Target, b.By)
	}
}

func TestConsoleAppliesTheKeysScopes(t *testing.T) {
	s := startConsoleSite(t, "ui")
	s.call("PUT", "/id/ark:12345/x5one", "editor", `{"target": "https://old.example.org/one"}`)
	reader := s.signIn("reader")
	page := reader.get("id/ark:12345/x5one")
	if page.status != http.StatusOK || !strings.Contains(page.body, "https://old.example.org/one") || strings.Contains(page.body, ">Edit</a>") {
		t.Errorf("the reader's view: %d, want the target and no Edit link: %s", page.status, page.body)
	}
	token := reader.token("")
	got := reader.post("edit/ark:12345/x5one", url.Values{"csrf": {token}, "version": {"1"}, "target": {"https://new.example.org/"}, "status": {"302"}})
	if got.status != http.StatusForbidden || !strings.Contains(got.body, "may not write") {
		t.Errorf("the reader's edit: %d, want 403 from the key's scopes: %s", got.status, got.body)
	}
	got = reader.post("withdraw/ark:12345/x5one", url.Values{"csrf": {token}, "version": {"1"}, "reason": {"no"}})
	if got.status != http.StatusForbidden {
		t.Errorf("the reader's withdrawal: %d, want 403: %s", got.status, got.body)
	}
	if b := s.lookup("ark:12345/x5one").Binding; b.Target != "https://old.example.org/one" || b.Status != 302 {
		t.Errorf("the reader changed it: %+v", b)
	}
	if got := reader.get("mint"); !strings.Contains(got.body, "may not mint under any shoulder") {
		t.Errorf("the reader's mint page offers shoulders: %s", got.body)
	}

	x5 := s.signIn("x5")
	mintPage := x5.get("mint")
	if !strings.Contains(mintPage.body, "<option selected>ark:12345/x5</option>") && !strings.Contains(mintPage.body, "<option>ark:12345/x5</option>") || strings.Contains(mintPage.body, "ark:12345/y7") {
		t.Errorf("x5's mint page offers other shoulders than x5: %s", mintPage.body)
	}
	got = x5.post("mint", url.Values{"csrf": {x5.token("mint")}, "shoulder": {"ark:12345/y7"}, "n": {"1"}})
	if got.status != http.StatusBadRequest {
		t.Errorf("x5 minting under y7: %d, want 400", got.status)
	}
	// Another shoulder's identifier is out of x5's scope, even to edit.
	got = x5.post("edit/ark:12345/y7abc", url.Values{"csrf": {x5.token("mint")}, "version": {"0"}, "target": {"https://x.example.org/"}, "status": {"302"}})
	if got.status != http.StatusForbidden {
		t.Errorf("x5 binding under y7: %d, want 403: %s", got.status, got.body)
	}
	s.expectUnbound("ark:12345/y7abc")
}

func TestConsoleCookieOfAnotherKey(t *testing.T) {
	secretA := testkit.WriteFile(t, "a.secret", strings.Repeat("a", 40))
	secretB := testkit.WriteFile(t, "b.secret", strings.Repeat("b", 40))
	s := startConsoleSite(t, "ui {\n\t\t\tsecret_file "+secretA+"\n\t\t}")
	editor := s.signIn("editor")
	cookie := editor.cookie()
	token := editor.token("")
	if got := s.withCookie(http.MethodGet, "", cookie, nil); got.status != http.StatusOK {
		t.Fatalf("the editor's own cookie: %d", got.status)
	}
	// The cookie names its key: naming another instead breaks its
	// signature, which covers the name.
	parts := strings.SplitN(cookie, ".", 2)
	for _, name := range []string{"reader", "x5"} {
		forged := base64.RawURLEncoding.EncodeToString([]byte(name)) + "." + parts[1]
		s.expectSignedOut("the editor's cookie renamed to "+name, forged, token)
	}
	s.expectSignedOut("a cookie that is not one", "editor", token)

	// A cookie signed with another secret (another site, or this one
	// before its secret was replaced) is refused.
	s.reload(apiKeys, "ui {\n\t\t\tsecret_file "+secretB+"\n\t\t}")
	s.expectSignedOut("a cookie signed with another secret", cookie, token)
}

func TestConsoleSessionEndsWithItsKey(t *testing.T) {
	s := startConsoleSite(t, "ui")
	x5 := s.signIn("x5")
	editor := s.signIn("editor")
	x5Cookie, x5Token := x5.cookie(), x5.token("")
	editorCookie, editorToken := editor.cookie(), editor.token("")

	// x5 is removed: its session ends with the reload; the editor's goes on.
	withoutX5 := strings.Replace(apiKeys, "key x5 %x5 write:ark:12345/x5", "", 1)
	s.reload(withoutX5, "ui")
	s.expectSignedOut("a removed key's cookie", x5Cookie, x5Token)
	if got := s.withCookie(http.MethodGet, "", editorCookie, nil); got.status != http.StatusOK {
		t.Fatalf("the editor's session did not outlive the reload: %d", got.status)
	}

	// The editor's key is given a new secret under the same name: the
	// sessions of the old secret end.
	s.reload(strings.Replace(withoutX5, "key editor %editor", "key editor "+keyHash("editor-new-secret"), 1), "ui")
	s.expectSignedOut("the cookie of a key whose secret was replaced", editorCookie, editorToken)
}

func TestConsoleSignOut(t *testing.T) {
	s := startConsoleSite(t, "ui")
	u := s.signIn("editor")
	cookie, token := u.cookie(), u.token("")
	got := u.post("signout", url.Values{"csrf": {token}})
	if got.status != http.StatusSeeOther || got.location != consoleUI+"signin?out=1" {
		t.Fatalf("signing out: %d %s", got.status, got.location)
	}
	if page := u.get("signin?out=1"); !strings.Contains(page.body, "You are signed out") {
		t.Errorf("after signing out: %s", page.body)
	}
	if got := u.get(""); got.status != http.StatusSeeOther {
		t.Errorf("the browser is still signed in: %d", got.status)
	}
	// A copy of the cookie kept from before is refused too.
	s.expectSignedOut("a signed-out session's cookie", cookie, token)
}

func TestConsoleSessionExpires(t *testing.T) {
	s := startConsoleSite(t, "ui {\n\t\t\tsession 1s\n\t\t}")
	u := s.signIn("editor")
	cookie, token := u.cookie(), u.token("")
	// The server, not only the browser, ends it: the cookie is sent on.
	testkit.WaitFor(t, "the session to expire", func() bool {
		return s.withCookie(http.MethodGet, "", cookie, nil).status == http.StatusSeeOther
	})
	s.expectSignedOut("an expired session's cookie", cookie, token)
}

func TestConsoleSlowsRepeatedFailedSignIns(t *testing.T) {
	s := startConsoleSite(t, "ui")
	u := s.newUser()
	token := u.token("signin")
	for i := range 3 {
		if got := u.post("signin", url.Values{"csrf": {token}, "key": {"guess-" + strconv.Itoa(i)}}); got.status != http.StatusUnauthorized {
			t.Fatalf("failure %d: %d, want 401", i+1, got.status)
		}
	}
	// Even the right key is not checked until the client has waited.
	got := u.post("signin", url.Values{"csrf": {token}, "key": {"editor-secret"}})
	if got.status != http.StatusTooManyRequests || got.header.Get("Retry-After") == "" || !strings.Contains(got.body, "Too many failed sign-ins") {
		t.Errorf("after 3 failures: %d Retry-After %q, want 429 with Retry-After: %s", got.status, got.header.Get("Retry-After"), got.body)
	}
	if got := u.get(""); got.status != http.StatusSeeOther {
		t.Errorf("signed in while slowed down: %d", got.status)
	}
}

func TestConsoleImport(t *testing.T) {
	s := startConsoleSite(t, "ui")
	u := s.signIn("editor")
	token := u.token("import")
	got := u.upload(token, "auto", "moved.csv", "id,target\nark:12345/x5a,https://a.example.org/\nark:12345/x5b,https://b.example.org/\n")
	if got.status != http.StatusOK || !strings.Contains(got.body, "Imported: 2 new in the store") {
		t.Fatalf("importing a CSV file: %d %s", got.status, got.body)
	}
	if r := s.lookup("ark:12345/x5b"); r == nil || r.Binding.Target != "https://b.example.org/" || r.Binding.By != "editor" {
		t.Errorf("after the import: %+v", r)
	}
	// A bad line imports nothing, and is shown.
	got = u.upload(token, "csv", "bad.csv", "ark:12345/x5c,https://c.example.org/\nark:12345/x5d,not a target\n")
	if got.status != http.StatusBadRequest || !strings.Contains(got.body, "bad.csv:2:") || !strings.Contains(got.body, "nothing was imported") {
		t.Errorf("a bad line: %d %s", got.status, got.body)
	}
	s.expectUnbound("ark:12345/x5c")
	// A table file, whose entry is outside the key's scope.
	reader := s.signIn("reader")
	got = reader.upload(reader.token("import"), "json", "t.json", `{"entries": [{"id": "ark:12345/x5e", "target": "https://e.example.org/"}]}`)
	if got.status != http.StatusForbidden || !strings.Contains(got.body, "may not write") {
		t.Errorf("the reader's import: %d %s", got.status, got.body)
	}
	s.expectUnbound("ark:12345/x5e")
	// Without the form's token nothing is read.
	got = u.upload("", "csv", "x.csv", "ark:12345/x5f,https://f.example.org/\n")
	if got.status != http.StatusForbidden {
		t.Errorf("an upload without token: %d", got.status)
	}
	s.expectUnbound("ark:12345/x5f")
}

func TestConsoleConfig(t *testing.T) {
	s := startConsoleSite(t, "")
	if got := s.get("/api/ark/ui/"); got.status != http.StatusUnauthorized {
		t.Errorf("without ui, /api/ark/ui/ is the API's: %d %s", got.status, got.body)
	}
	short := testkit.WriteFile(t, "short.secret", "too short")
	for _, c := range []struct{ ui, want string }{
		{"ui {\n\t\t\tsession 0s\n\t\t}", "session"},
		{"ui {\n\t\t\tcolour blue\n\t\t}", `unknown subdirective "colour"`},
		{"ui yes", "ui takes no arguments"},
		{"ui\n\t\t\tui", "given twice"},
		{"ui {\n\t\t\tsecret_file " + short + "\n\t\t}", "a secret has at least 32"},
	} {
		err := s.load(s.body(apiKeys, c.ui))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an error saying %q", c.ui, err, c.want)
		}
	}
}
