package ezid

import (
	"archive/zip"
	"bytes"
	"encoding/csv"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
)

// TestEZIDOnPostgres runs the operations, the status transitions and
// minting on the PostgreSQL store, in a real throwaway cluster.
func TestEZIDOnPostgres(t *testing.T) {
	pg := "store postgres " + testkit.SharedPostgres(t).CreateDB(t)
	t.Run("operations", func(t *testing.T) { testOperations(t, startEZIDSite(t, pg, "", "")) })
	pg = "store postgres " + testkit.SharedPostgres(t).CreateDB(t)
	t.Run("status", func(t *testing.T) { testStatus(t, startEZIDSite(t, pg, "", "")) })
	pg = "store postgres " + testkit.SharedPostgres(t).CreateDB(t)
	t.Run("mint", func(t *testing.T) { testMint(t, startEZIDSite(t, pg, "", "")) })
}

// TestEZIDTwoNodes: two Caddy processes on one PostgreSQL database, this
// one and the caddy binary, given one EZID secret. What EZID's API writes
// on one, the other's EZID API, resolver and OAI-PMH answer: unavailable,
// public again and reserved alike. A session cookie of one is taken by
// the other; a logout ends it on the node that answered it.
func TestEZIDTwoNodes(t *testing.T) {
	a, b := startTwoNodes(t)

	a.expect(a.call("PUT", "/id/ark:/12345/x5n", "_target: https://example.org/n\nerc.who: A\n", "basic", alice), http.StatusCreated, "success: ark:/12345/x5n")
	m := b.expect(b.call("GET", "/id/ark:/12345/x5n", ""), http.StatusOK, "success: ark:/12345/x5n")
	if m["erc.who"] != "A" || m["_owner"] != "alice" {
		t.Errorf("b reads %v", m)
	}
	// b caches a's answer first, then a's change reaches it.
	b.ExpectRedirects(map[string]string{"/ark:12345/x5n": "https://example.org/n"})
	a.expect(a.call("POST", "/id/ark:/12345/x5n", "_status: unavailable | moved\n", "basic", alice), http.StatusOK, "success: ark:/12345/x5n")
	testkit.WaitFor(t, "b to answer the tombstone", func() bool { return b.Get("/ark:12345/x5n").Status == http.StatusGone })
	b.expect(b.call("POST", "/id/ark:/12345/x5n", "_status: public\n", "basic", alice), http.StatusOK, "success: ark:/12345/x5n")
	testkit.WaitFor(t, "a to resolve it again", func() bool { return a.Get("/ark:12345/x5n").Location == "https://example.org/n" })

	// Mints on both never give a name twice, and each names the other's
	// as taken.
	seen := map[string]bool{}
	for i := 0; i < 10; i++ {
		for _, s := range []*ezidSite{a, b} {
			got := s.call("POST", "/shoulder/ark:/12345/x5", "_status: reserved\n", "basic", alice)
			id, ok := strings.CutPrefix(got.Body, "success: ")
			if got.Status != http.StatusCreated || !ok || seen[id] {
				t.Fatalf("mint %d: %d %q (seen: %v)", i, got.Status, got.Body, seen[id])
			}
			seen[id] = true
		}
	}
}

// startTwoNodes starts two nodes on one PostgreSQL database, a in this
// process and b the caddy binary, with the same EZID secret and separate
// Caddy storage.
func startTwoNodes(t *testing.T) (a, b *ezidSite) {
	t.Helper()
	pg := "store postgres " + testkit.SharedPostgres(t).CreateDB(t)
	t.Setenv("EZID_TEST_SECRET", twoNodeSecret)
	a = startEZIDSite(t, pg, "", "secret {env.EZID_TEST_SECRET}")
	b = &ezidSite{path: "", table: a.table}
	b.Site = caddytest.StartNode(t, siteBody(t, pg, a.table, "", "secret "+twoNodeSecret), a.table).Site
	return a, b
}

// twoNodeSecret is the EZID secret of both nodes of startTwoNodes.
const twoNodeSecret = "the-two-nodes-share-this-secret"

// A session cookie of login on one node is a credential on the other; a
// cookie signed with another secret, for another site, altered, or
// logged out on the node that is sent it is none.
func TestEZIDSessionAcrossNodes(t *testing.T) {
	a, b := startTwoNodes(t)
	login := a.call("GET", "/login", "", "basic", alice)
	a.expect(login, http.StatusOK, "success: session cookie returned")
	cookie, _, _ := strings.Cut(login.Header.Get("Set-Cookie"), ";")
	a.expect(a.call("PUT", "/id/ark:/12345/x5s", "erc.who: A\n", "Cookie", cookie), http.StatusCreated, "success: ark:/12345/x5s")
	// The balancer sends b the host a was sent.
	host := strings.TrimPrefix(a.Base, "http://")
	b.expect(b.call("POST", "/id/ark:/12345/x5s", "erc.what: W\n", "Cookie", cookie, "Host", host), http.StatusOK, "success: ark:/12345/x5s")
	if m := a.expect(a.call("GET", "/id/ark:/12345/x5s", ""), http.StatusOK, "success: ark:/12345/x5s"); m["erc.what"] != "W" {
		t.Errorf("a reads %v after b's change", m)
	}

	// An altered cookie, or one for another host, is no credential.
	name, value, _ := strings.Cut(cookie, "=")
	payload, sum, _ := strings.Cut(value, ".")
	altered := name + "=" + payload + "." + strings.Repeat("A", len(sum))
	b.expect(b.call("POST", "/id/ark:/12345/x5s", "erc.what: X\n", "Cookie", altered, "Host", host), http.StatusUnauthorized, "error: unauthorized")
	b.expect(b.call("POST", "/id/ark:/12345/x5s", "erc.what: X\n", "Cookie", cookie, "Host", "other.example.org"), http.StatusUnauthorized, "error: unauthorized")

	// A node with a secret of its own does not take it.
	c := &ezidSite{table: a.table}
	c.Site = caddytest.StartNode(t, siteBody(t, boltStore(t), a.table, "", "secret another-secret-of-its-own"), a.table).Site
	c.expect(c.call("POST", "/id/ark:/12345/x5s", "erc.what: X\n", "Cookie", cookie, "Host", host), http.StatusUnauthorized, "error: unauthorized")

	// A logout clears the cookie at the client, and the node that
	// answered it no longer takes the cookie if it is sent again; the
	// other node takes it until it expires (the logouts are each node's).
	out := a.call("GET", "/logout", "", "Cookie", cookie)
	a.expect(out, http.StatusOK, "success: authentication credentials flushed")
	if sc := out.Header.Get("Set-Cookie"); !strings.HasPrefix(sc, "sessionid=;") || !strings.Contains(sc, "Max-Age=0") {
		t.Errorf("logout's Set-Cookie %q", sc)
	}
	a.expect(a.call("POST", "/id/ark:/12345/x5s", "erc.what: X\n", "Cookie", cookie), http.StatusUnauthorized, "error: unauthorized")
	b.expect(b.call("POST", "/id/ark:/12345/x5s", "erc.what: Y\n", "Cookie", cookie, "Host", host), http.StatusOK, "success: ark:/12345/x5s")
}

// A download asked of one node is fetched from the other, behind one
// host as a balancer sends it: the other writes it from the store and
// answers it once complete (404 until then), with the same records as
// the first. A link altered, or signed with another secret, is 404.
func TestEZIDDownloadAcrossNodes(t *testing.T) {
	a, b := startTwoNodes(t)
	if got := a.native("POST", "/import?format=anvl", alicesDownload); got.Status != http.StatusOK {
		t.Fatalf("import: %d %s", got.Status, got.Body)
	}
	host := strings.TrimPrefix(a.Base, "http://")
	for _, form := range []string{"format=anvl", "format=csv&column=_id&column=_status&column=erc.who&compression=zip"} {
		resp := a.postForm(alice, form)
		link, ok := strings.CutPrefix(resp.Body, "success: "+a.Base+"/download/")
		if resp.Status != http.StatusOK || !ok {
			t.Fatalf("download_request %s: %d %q", form, resp.Status, resp.Body)
		}
		var fromB caddytest.Answer
		testkit.WaitFor(t, "b to write the download", func() bool {
			fromB = b.call("GET", "/download/"+link, "", "Host", host)
			return fromB.Status == http.StatusOK
		})
		_, fromA := a.requestDownload(alice, form)
		if form == "format=anvl" {
			idsA, recA := records(t, gunzip(t, fromA))
			idsB, recB := records(t, gunzip(t, []byte(fromB.Body)))
			if strings.Join(idsB, " ") != "ark:/12345/x5a1 ark:/12345/x5b2 ark:/12345/x5c3" || strings.Join(idsA, " ") != strings.Join(idsB, " ") {
				t.Errorf("a's download holds %v, b's %v", idsA, idsB)
			}
			for id := range recA {
				if !maps.Equal(recA[id], recB[id]) {
					t.Errorf("%s: a's %q, b's %q", id, recA[id], recB[id])
				}
			}
			continue
		}
		if fromB.Header.Get("Content-Type") != "application/zip" {
			t.Errorf("b's zip: Content-Type %q", fromB.Header.Get("Content-Type"))
		}
		if got, want := unzipCSV(t, []byte(fromB.Body)), unzipCSV(t, fromA); len(got) != 4 || !slices.EqualFunc(got, want, slices.Equal) {
			t.Errorf("b's CSV %q, a's %q", got, want)
		}

		payload, rest, _ := strings.Cut(link, ".")
		altered := payload + "A." + rest
		if got := b.call("GET", "/download/"+altered, "", "Host", host); got.Status != http.StatusNotFound {
			t.Errorf("an altered link: %d", got.Status)
		}
		if got := b.call("GET", "/download/"+link, "", "Host", "other.example.org"); got.Status != http.StatusNotFound {
			t.Errorf("the link on another host: %d", got.Status)
		}
		c := &ezidSite{table: a.table}
		c.Site = caddytest.StartNode(t, siteBody(t, "store postgres "+testkit.SharedPostgres(t).CreateDB(t), a.table, "", "secret another-secret-of-its-own"), a.table).Site
		if got := c.call("GET", "/download/"+link, "", "Host", host); got.Status != http.StatusNotFound {
			t.Errorf("the link on a node of another secret: %d", got.Status)
		}
	}
}

// unzipCSV reads the rows of a zip download's CSV file.
func unzipCSV(t *testing.T, data []byte) [][]string {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil || len(zr.File) != 1 {
		t.Fatalf("zip: %v", err)
	}
	f, err := zr.File[0].Open()
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}
