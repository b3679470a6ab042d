package console

import (
	"net/http"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/chromedp/chromedp"
)

// An admin signed in to the console makes a key on the keys page, sees
// its secret once, and the key works in the API at once; a scope beyond
// the admin's is refused with the reason; revoking it there ends it. A
// key that is no admin has no keys page.
func TestConsoleKeysInBrowser(t *testing.T) {
	s := caddytest.StartConsoleSite(t, "ui")
	if err := s.Load(s.Body(caddytest.APIKeys+"\n\t\tkey boss "+caddytest.KeyHash("boss-secret")+" admin write:ark:12345", "ui")); err != nil {
		t.Fatal(err)
	}
	b := newBrowser(t, s)
	b.signIn("boss")
	if status := b.navigate(chromedp.Click(chromedp.CSS(`nav a[href$="/keys"]`))); status != http.StatusOK {
		t.Fatalf("the keys page: %d", status)
	}
	b.checkPlain("keys")
	b.do("filling in the new key",
		chromedp.SendKeys(chromedp.CSS(`#key-name`), "scanner"),
		chromedp.SendKeys(chromedp.CSS(`#key-scopes`), "write:*"),
	)
	if status := b.submit(`form.stack button[type=submit]`); status != http.StatusForbidden {
		t.Errorf("making a key beyond the admin's scopes: %d, want 403", status)
	}
	b.expectText(`p.error`, "key boss may not give scope write:*")
	b.do("correcting the scopes",
		chromedp.Clear(chromedp.CSS(`#key-scopes`)),
		chromedp.SendKeys(chromedp.CSS(`#key-scopes`), "write:ark:12345/x5"),
		chromedp.SendKeys(chromedp.CSS(`#key-label`), "the scanning room"),
	)
	if status := b.submit(`form.stack button[type=submit]`); status != http.StatusCreated {
		t.Fatalf("making a key: %d, want 201", status)
	}
	secret := strings.TrimSpace(b.text(`#new-secret`))
	b.expectText(`#key-scanner`, "write:ark:12345/x5")
	b.expectText(`#key-scanner`, "the scanning room")
	b.checkPlain("keys-made")
	if got := caddytest.CallSecret(t, s.APISite, "PUT", "/id/ark:12345/x5web", secret, `{"target": "https://repo.example.org/web"}`); got.Status != http.StatusCreated {
		t.Fatalf("PUT with the key made in the console: %d %s", got.Status, got.Body)
	}

	if status := b.open("keys"); status != http.StatusOK {
		t.Fatalf("the keys page again: %d", status)
	}
	html, err := chromedp.Run(b.ctx, chromedp.OuterHTML(chromedp.CSS("html")))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(html, secret) {
		t.Error("the keys page shows the secret again")
	}
	if status := b.submit(`#key-scanner button.danger`); status != http.StatusOK {
		t.Fatalf("revoking: %d", status)
	}
	b.expectText(`p.notice`, "Key scanner revoked")
	if got := caddytest.CallSecret(t, s.APISite, "GET", "/id/ark:12345/x5web", secret, ""); got.Status != http.StatusUnauthorized {
		t.Errorf("the revoked key: %d %s, want 401", got.Status, got.Body)
	}

	editor := newBrowser(t, s)
	editor.signIn("editor")
	if n, err := chromedp.Run(editor.ctx, chromedp.Evaluate[int](`document.querySelectorAll('nav a[href$="/keys"]').length`)); err != nil || n != 0 {
		t.Errorf("a key that is no admin sees a Keys link (%d, %v)", n, err)
	}
	if status := editor.open("keys"); status != http.StatusForbidden {
		t.Errorf("the keys page for a key that is no admin: %d, want 403", status)
	}
}
