package ezid

import (
	"crypto/tls"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
)

// TestEZIDSessionCookieSecureOnHTTPS: over https, login's session cookie
// is Secure, so that a client never sends it over plain http.
func TestEZIDSessionCookieSecureOnHTTPS(t *testing.T) {
	table := testkit.WriteTable(t, []any{})
	_, httpsPort := caddytest.StartLocalHTTPS(t, "\tauto_https disable_redirects\n",
		"localhost {\n\tbind 127.0.0.1\n"+siteBody(t, "store bolt "+filepath.Join(t.TempDir(), "ark.db"), table, "", "")+"\n}\n")
	tr := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true, ServerName: "localhost"}}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr, CheckRedirect: caddytest.Client.CheckRedirect}
	base := "https://localhost:" + strconv.Itoa(httpsPort)
	testkit.WaitFor(t, "the site to answer HTTPS", func() bool {
		resp, err := c.Get(base + "/status")
		if err == nil {
			resp.Body.Close()
		}
		return err == nil
	})
	req, err := http.NewRequest("GET", base+"/login", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.SetBasicAuth("alice", "alice-pw")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	set := resp.Header.Get("Set-Cookie")
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(set, "sessionid=") || !strings.Contains(set, "; Secure") || !strings.Contains(set, "HttpOnly") {
		t.Errorf("login over https: %d, Set-Cookie %q", resp.StatusCode, set)
	}
}
