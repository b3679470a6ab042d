package console

import (
	"crypto/tls"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
)

// On HTTPS the console's cookies are Secure: the browser never sends
// them over plain HTTP.
func TestConsoleCookiesAreSecureOnHTTPS(t *testing.T) {
	keys := strings.Replace(caddytest.APIKeys, "%editor", caddytest.KeyHash("editor-secret"), 1)
	keys = strings.Replace(strings.Replace(keys, "%reader", caddytest.KeyHash("reader-secret"), 1), "%x5", caddytest.KeyHash("x5-secret"), 1)
	_, httpsPort := caddytest.StartLocalHTTPS(t, "\tauto_https disable_redirects\n", `
localhost {
	bind 127.0.0.1
	ark {
		naan 12345
		store bolt `+filepath.Join(t.TempDir(), "ark.db")+`
		api /api/ark {`+keys+`
			ui
		}
	}
}
`)
	tr := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true, ServerName: "localhost"}}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr, CheckRedirect: caddytest.Client.CheckRedirect, Timeout: caddytest.Client.Timeout}
	base := "https://localhost:" + strconv.Itoa(httpsPort) + caddytest.ConsoleUI
	testkit.WaitFor(t, "the site to answer HTTPS", func() bool {
		resp, err := c.Get(base + "console.css")
		if err == nil {
			resp.Body.Close()
		}
		return err == nil
	})

	resp, err := c.Get(base + "signin")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	var signin *http.Cookie
	for _, ck := range resp.Cookies() {
		if ck.Name == "ark_console_signin" {
			signin = ck
		}
	}
	if signin == nil || !signin.Secure {
		t.Fatalf("the sign-in form's cookie on HTTPS: %+v, want Secure", signin)
	}
	page := getWithCookie(t, c, base+"signin", signin)
	token := caddytest.CSRFValue.FindStringSubmatch(page)[1]
	req, _ := http.NewRequest("POST", base+"signin", strings.NewReader(url.Values{"csrf": {token}, "key": {"editor-secret"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.AddCookie(signin)
	resp, err = c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	var session *http.Cookie
	for _, ck := range resp.Cookies() {
		if ck.Name == "ark_console" {
			session = ck
		}
	}
	if resp.StatusCode != http.StatusSeeOther || session == nil || !session.Secure || !session.HttpOnly || session.SameSite != http.SameSiteStrictMode {
		t.Errorf("signing in on HTTPS: %d, session cookie %+v, want Secure, HttpOnly, SameSite=Strict", resp.StatusCode, session)
	}
}

// getWithCookie returns the body of a GET of address with cookie.
func getWithCookie(t *testing.T, c *http.Client, address string, cookie *http.Cookie) string {
	t.Helper()
	req, _ := http.NewRequest("GET", address, nil)
	req.AddCookie(cookie)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	if _, err := io.Copy(&b, resp.Body); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
