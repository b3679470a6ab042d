package oai

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"math"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/caddy-ark/caddy-ark/table"
	"github.com/caddyserver/caddy/v2"
)

// tokenSecret is the token_secret of the token tests' sites.
const tokenSecret = "a-test-secret-of-the-oai-tokens"

// tokenSiteBody is a site with a table of seven entries (three pages)
// and no store, whose provider signs tokens with secret ("" for the
// default, from Caddy's storage).
func tokenSiteBody(tablePath, secret string) string {
	block := "oai /oai {\n\t\t\tadmin_email admin@example.org\n\t\t\tpage_size 3\n"
	if secret != "" {
		block += "\t\t\ttoken_secret " + secret + "\n"
	}
	return "ark {\n\t\tnaan 12345\n\t\ttable " + tablePath + "\n\t\t" + block + "\t\t}\n\t}"
}

// tokenTable writes the token tests' table and waits for the next second,
// so that the table's datestamp is in the lists' window.
func tokenTable(t *testing.T) string {
	t.Helper()
	var entries []table.Entry
	for _, name := range []string{"t1", "x5a", "x5b", "x5c", "x5d", "x5e", "x5f"} {
		entries = append(entries, table.Entry{ID: "ark:12345/" + name, Target: "https://repo.example.org/" + name})
	}
	path := testkit.WriteTable(t, entries)
	testkit.NextSecond()
	return path
}

// forge returns token with its cursor changed by change, signed with
// secret, unsigned when secret is "".
func forge(t *testing.T, token, secret string, change func(c map[string]any)) string {
	t.Helper()
	payload, _, _ := strings.Cut(token, ".")
	b, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil {
		t.Fatalf("token %q: %v", token, err)
	}
	var c map[string]any
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatalf("token %q: %v", token, err)
	}
	change(c)
	b, _ = json.Marshal(c)
	forged := base64.RawURLEncoding.EncodeToString(b)
	if secret != "" {
		mac := hmac.New(sha256.New, []byte(secret))
		mac.Write(b)
		forged += "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
	}
	return forged
}

// resume asks the next page of a ListIdentifiers with token.
func resume(s *caddytest.Site, token string) *oaiDoc {
	s.T.Helper()
	return decodeOAI(s.T, oaiGet(s, "verb=ListIdentifiers&resumptionToken="+url.QueryEscape(token)))
}

// firstToken returns the token of a ListIdentifiers' first page.
func firstToken(s *caddytest.Site) string {
	s.T.Helper()
	d := decodeOAI(s.T, oaiGet(s, "verb=ListIdentifiers&metadataPrefix=oai_dc&set=ark:12345:x5"))
	if d.Token == nil || d.Token.Value == "" || len(d.Headers) != 3 {
		s.T.Fatalf("first page: %d headers, token %+v", len(d.Headers), d.Token)
	}
	return d.Token.Value
}

// TestOAIForgedTokens: a resumption token changed in any way, unsigned,
// or signed with another secret is a badResumptionToken; one signed with
// the site's secret but expired is one too; a cursor beyond bounds is
// refused rather than overflowing. The token as issued goes on.
func TestOAIForgedTokens(t *testing.T) {
	testkit.NeedTool(t, "xmllint", "libxml2-utils")
	s := caddytest.StartSite(t, tokenSiteBody(tokenTable(t), tokenSecret))
	token := firstToken(s)
	later := float64(time.Now().Add(1000 * 24 * time.Hour).Unix())
	cases := map[string]string{
		"unsigned, expiry a thousand days on": forge(t, token, "", func(c map[string]any) { c["e"] = later }),
		"unsigned, window widened":            forge(t, token, "", func(c map[string]any) { c["u"] = later; delete(c, "s") }),
		"unsigned, cursor at the largest int": forge(t, token, "", func(c map[string]any) { c["c"] = math.MaxInt64 }),
		"unchanged, unsigned":                 forge(t, token, "", func(map[string]any) {}),
		"expiry changed, signature kept": forge(t, token, "", func(c map[string]any) { c["e"] = later }) +
			token[strings.IndexByte(token, '.'):],
		"set removed, signature kept":       forge(t, token, "", func(c map[string]any) { delete(c, "s") }) + token[strings.IndexByte(token, '.'):],
		"signed with another secret":        forge(t, token, "another-secret-of-sixteen-bytes", func(map[string]any) {}),
		"signature cut":                     token[:len(token)-4],
		"signed, cursor at the largest int": forge(t, token, tokenSecret, func(c map[string]any) { c["c"] = math.MaxInt64 }),
		"signed, cursor negative":           forge(t, token, tokenSecret, func(c map[string]any) { c["c"] = -5 }),
		"signed, table position far out":    forge(t, token, tokenSecret, func(c map[string]any) { c["t"], c["i"] = true, math.MaxInt64 }),
	}
	for name, forged := range cases {
		d := resume(s, forged)
		if len(d.Errors) != 1 || d.Errors[0].Code != "badResumptionToken" || len(d.Headers) != 0 {
			t.Errorf("%s: %+v, %d headers, token %+v; want a badResumptionToken", name, d.Errors, len(d.Headers), d.Token)
		}
	}
	expired := forge(t, token, tokenSecret, func(c map[string]any) { c["e"] = float64(time.Now().Add(-time.Hour).Unix()) })
	if d := resume(s, expired); len(d.Errors) != 1 || d.Errors[0].Code != "badResumptionToken" || !strings.Contains(d.Errors[0].Text, "expired") {
		t.Errorf("a signed token expired an hour ago: %+v", d.Errors)
	}

	d := resume(s, token)
	if len(d.Errors) != 0 || len(d.Headers) != 3 || d.Token == nil || d.Token.Cursor != "3" {
		t.Errorf("the token as issued: %+v, %d headers, token %+v", d.Errors, len(d.Headers), d.Token)
	}
}

// TestOAITokensAcrossNodesAndReloads: two caddy processes given one
// token_secret take each other's tokens; one given another secret does
// not. A site without token_secret takes its tokens after a reload and
// a restart (the secret is kept in Caddy's storage).
func TestOAITokensAcrossNodesAndReloads(t *testing.T) {
	testkit.NeedTool(t, "xmllint", "libxml2-utils")
	tablePath := tokenTable(t)
	a := caddytest.StartNode(t, tokenSiteBody(tablePath, tokenSecret), tablePath)
	b := caddytest.StartNode(t, tokenSiteBody(tablePath, tokenSecret), tablePath)
	other := caddytest.StartNode(t, tokenSiteBody(tablePath, "another-secret-of-sixteen-bytes"), tablePath)
	token := firstToken(a.Site)
	if d := resume(b.Site, token); len(d.Errors) != 0 || len(d.Headers) != 3 || d.Token == nil || d.Token.Cursor != "3" {
		t.Errorf("node A's token on node B: %+v, %d headers, token %+v", d.Errors, len(d.Headers), d.Token)
	}
	if d := resume(other.Site, token); len(d.Errors) != 1 || d.Errors[0].Code != "badResumptionToken" {
		t.Errorf("node A's token on a node with another secret: %+v", d.Errors)
	}

	body := tokenSiteBody(tablePath, "")
	s := caddytest.StartSite(t, body)
	token = firstToken(s)
	if err := s.Load(body); err != nil {
		t.Fatalf("reload: %v", err)
	}
	if d := resume(s, token); len(d.Errors) != 0 || len(d.Headers) != 3 {
		t.Errorf("a token after a reload: %+v, %d headers", d.Errors, len(d.Headers))
	}
	if err := caddy.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := s.Load(body); err != nil {
		t.Fatalf("restart: %v", err)
	}
	if d := resume(s, token); len(d.Errors) != 0 || len(d.Headers) != 3 || d.Token == nil || d.Token.Cursor != "3" {
		t.Errorf("a token after a restart: %+v, %d headers", d.Errors, len(d.Headers))
	}
}
