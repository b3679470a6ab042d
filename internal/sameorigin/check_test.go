package sameorigin

import (
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestCheck: what a browser says of where a request comes from decides;
// a request that says nothing is a program's.
func TestCheck(t *testing.T) {
	cases := []struct {
		what    string
		tls     bool
		header  []string
		refused string // "" when allowed
	}{
		{"curl, nothing said", false, nil, ""},
		{"the site's own page", false, []string{"Sec-Fetch-Site", "same-origin", "Origin", "http://site.example:8080"}, ""},
		{"typed in the address bar", false, []string{"Sec-Fetch-Site", "none"}, ""},
		{"an old browser, the site's own page", false, []string{"Origin", "http://site.example:8080"}, ""},
		{"host in capitals", false, []string{"Origin", "http://SITE.example:8080"}, ""},
		{"over TLS, the site's own https page", true, []string{"Origin", "https://site.example:8080"}, ""},
		{"another site", false, []string{"Sec-Fetch-Site", "cross-site", "Origin", "https://evil.example"}, "Sec-Fetch-Site: cross-site"},
		{"another subdomain or port", false, []string{"Sec-Fetch-Site", "same-site", "Origin", "http://site.example:9090"}, "Sec-Fetch-Site: same-site"},
		{"same-origin said, another Origin", false, []string{"Sec-Fetch-Site", "same-origin", "Origin", "http://evil.example"}, "not this site's host site.example:8080"},
		{"an old browser, another site", false, []string{"Origin", "https://evil.example"}, "Origin: https://evil.example, not this site's host"},
		{"an old browser, another port", false, []string{"Origin", "http://site.example:9090"}, "not this site's host"},
		{"an old browser, no port", false, []string{"Origin", "http://site.example"}, "not this site's host"},
		{"a sandboxed page", false, []string{"Origin", "null"}, "Origin: null"},
		{"a sandboxed page of a newer browser", false, []string{"Sec-Fetch-Site", "cross-site", "Origin", "null"}, "Sec-Fetch-Site: cross-site"},
		{"another site, no Origin", false, []string{"Sec-Fetch-Site", "cross-site"}, "Sec-Fetch-Site: cross-site"},
		{"over TLS, an http page of the same host and port", true, []string{"Origin", "http://site.example:8080"}, "not served over https"},
		{"something unreadable", false, []string{"Origin", "http://[::1"}, "Origin: http://[::1"},
	}
	for _, c := range cases {
		r := httptest.NewRequest(http.MethodPost, "http://site.example:8080/api/ark/bulk", nil)
		if c.tls {
			r.TLS = &tls.ConnectionState{}
		}
		for i := 0; i+1 < len(c.header); i += 2 {
			r.Header.Set(c.header[i], c.header[i+1])
		}
		err := Check(r)
		switch {
		case c.refused == "" && err != nil:
			t.Errorf("%s: refused: %v", c.what, err)
		case c.refused != "" && err == nil:
			t.Errorf("%s: allowed, want refused", c.what)
		case c.refused != "" && !strings.Contains(err.Error(), c.refused):
			t.Errorf("%s: refused %q, want it to say %q", c.what, err, c.refused)
		}
	}
}
