package serve

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddyserver/caddy/v2"
)

// siteGetWithHost requests path from s with the Host header host.
func siteGetWithHost(s *caddytest.Site, path, host string, header http.Header) (caddytest.Answer, map[string]any) {
	s.T.Helper()
	req, err := http.NewRequest(http.MethodGet, s.Base+path, nil)
	if err != nil {
		s.T.Fatal(err)
	}
	req.Host = host
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := caddytest.Client.Do(req)
	if err != nil {
		s.T.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var record map[string]any
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(body, &record); err != nil {
			s.T.Fatal(err)
		}
	}
	return caddytest.Answer{Status: resp.StatusCode, Location: resp.Header.Get("Location"), Body: string(body), Header: resp.Header}, record
}

// On a catch-all site, a forged Host never reaches a link: without
// base_url, self-links are path-absolute (issue 9, item 9).
func TestCatchAllSiteDoesNotReflectHost(t *testing.T) {
	s := &caddytest.Site{T: t, CatchAll: true}
	if err := s.Load(`
	ark {
		naan 12345
		map ark:12345/x5 https://repo.example.org/x5
	}`); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = caddy.Stop() })
	got, _ := siteGetWithHost(s, "/ark:12345/x5", "evil.example", nil)
	if links := strings.Join(got.Header.Values("Link"), ", "); describedBy(got) != `</ark:12345/x5?info>; rel="describedby"` || strings.Contains(links, "evil") {
		t.Errorf("Link %q, want a path-absolute describedby link", links)
	}
	_, record := siteGetWithHost(s, "/ark:12345/x5?info", "evil.example", caddytest.AcceptJSON)
	if record["url"] != "/ark:12345/x5" || record["resolver"] != "/" {
		t.Errorf("?info url %v, resolver %v: want path-absolute", record["url"], record["resolver"])
	}
	if info, _ := siteGetWithHost(s, "/ark:12345/x5?info", "evil.example", nil); strings.Contains(info.Body, "evil") {
		t.Errorf("?info reflects the Host header:\n%s", info.Body)
	}
}

// A site configured for its host by name links with that host.
func TestNamedSiteLinksWithItsHost(t *testing.T) {
	s := caddytest.StartSite(t, `
	ark {
		map ark:12345/x5 https://repo.example.org/x5
	}`)
	got := s.Get("/ark:12345/x5")
	if want := `<` + s.Base + `/ark:12345/x5?info>; rel="describedby"`; describedBy(got) != want {
		t.Errorf("Link %q, want %q", got.Header.Values("Link"), want)
	}
}

// base_url fixes every self-link, whatever the Host header says.
func TestBaseURLFixesSelfLinks(t *testing.T) {
	s := &caddytest.Site{T: t, CatchAll: true}
	if err := s.Load(`
	ark {
		naan 12345
		base_url https://ark.example.org/resolver/
		map ark:12345/x5 /objects/x5wf6789.html
		policy ark:12345 "We keep them."
	}`); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = caddy.Stop() })
	got, _ := siteGetWithHost(s, "/ark:12345/x5", "evil.example", nil)
	l := caddytest.Links(got)
	if links := strings.Join(got.Header.Values("Link"), ", "); strings.Contains(links, "evil") || len(l["cite-as"]) != 1 ||
		l["cite-as"][0] != "https://ark.example.org/resolver/ark:12345/x5" || l["describedby"][0] != "https://ark.example.org/resolver/ark:12345/x5?info" {
		t.Errorf("Link %q, want base_url's links", links)
	}
	_, record := siteGetWithHost(s, "/ark:12345/x5?info", "evil.example", caddytest.AcceptJSON)
	if record["url"] != "https://ark.example.org/resolver/ark:12345/x5" || record["resolver"] != "https://ark.example.org/resolver/" {
		t.Errorf("?info url %v, resolver %v", record["url"], record["resolver"])
	}
	if info, _ := siteGetWithHost(s, "/ark:12345/x5?info", "evil.example", nil); !strings.Contains(info.Body, "erc-support:\nwho: ark.example.org") {
		t.Errorf("?info commitment does not name base_url's host:\n%s", info.Body)
	}
}

// A base_url that is not an absolute http(s) URL is refused at load.
func TestBadBaseURLIsRefused(t *testing.T) {
	s := caddytest.StartSite(t, `ark {
		map ark:12345/x5 https://repo.example.org/x5
	}`)
	for _, bad := range []string{"example.org", "ftp://example.org", "https://example.org/?x", "https://u@example.org"} {
		err := s.Load("ark {\n\t\tbase_url " + bad + "\n\t}")
		if err == nil || !strings.Contains(err.Error(), "base_url") {
			t.Errorf("base_url %s: got %v, want an error naming base_url", bad, err)
		}
	}
	if got := s.Get("/ark:12345/x5"); got.Status != http.StatusFound {
		t.Errorf("after refused loads: got %d, want the running config's 302", got.Status)
	}
}
