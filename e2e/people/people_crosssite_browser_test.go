package people

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/chromedp/chromedp"
)

// crossSiteScript is what a page of another site runs to write through
// the API with the credentials its visitor's browser holds for it: a
// beacon and fetches in no-cors mode, which need no preflight, each with a
// body type a page may send so, the fetches awaited (their answers are
// opaque to the page, but they have been answered).
const crossSiteScript = `(async () => {
	const api = API;
	const form = {"Content-Type": "application/x-www-form-urlencoded"};
	const sent = navigator.sendBeacon(api + "/bulk", JSON.stringify({op: "bind", id: ID_BEACON, target: "https://phish.example/beacon"}));
	await fetch(api + "/withdraw/" + ID_WITHDRAW, {method: "POST", mode: "no-cors", credentials: "include", headers: form, body: JSON.stringify({reason: "withdrawn by another site"})});
	await fetch(api + "/bulk", {method: "POST", mode: "no-cors", credentials: "include", body: JSON.stringify({op: "bind", id: ID_BULK, target: "https://phish.example/bulk"})});
	await fetch(api + "/retarget", {method: "POST", mode: "no-cors", credentials: "include", headers: form, body: JSON.stringify({from: "https://repo.example.org/", to: "https://phish.example/"})});
	return sent;
})()`

// script is crossSiteScript against the API at api, on the identifiers
// of its three writes.
func script(api, beacon, withdraw, bulk string) string {
	return strings.NewReplacer("API", strconv.Quote(api), "ID_BEACON", strconv.Quote(beacon), "ID_WITHDRAW", strconv.Quote(withdraw), "ID_BULK", strconv.Quote(bulk)).Replace(crossSiteScript)
}

// TestPeopleCrossSiteInBrowser: in a real Chromium that holds a person's
// basic_auth credentials for the site, a page of another site (and one
// of another port of the same host) that sends writes to the API with a
// beacon and no-cors fetches changes nothing; the same script run by a
// page of the site itself writes, which shows that the browser does send
// the credentials and the requests.
func TestPeopleCrossSiteInBrowser(t *testing.T) {
	auth := peopleOrKeys + basicAuth(t, "@people", map[string]string{"alice": "alice-pw"})
	s := startPeopleSite(t, auth, `people basic_auth
				person alice write:ark:12345
				`+bossKey)
	for _, id := range []string{"x5a1", "x5a2", "x5s1"} {
		expect(t, "binding "+id, s.call("PUT", "/id/ark:12345/"+id, `{"target": "https://repo.example.org/`+id+`"}`, boss...), http.StatusCreated, "")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	other := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<!doctype html><title>Win a prize</title><p>Congratulations!</p>"))
	})}
	go other.Serve(ln)
	t.Cleanup(func() { other.Close() })
	_, port, _ := net.SplitHostPort(ln.Addr().String())

	ctx := testkit.Browser(t)
	run := func(what string, page, js string) {
		t.Helper()
		tctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		if err := chromedp.Do(tctx, chromedp.Navigate(page)); err != nil {
			t.Fatalf("%s: opening %s: %v", what, page, err)
		}
		if js == "" {
			return
		}
		sent, err := chromedp.Run(tctx, chromedp.Evaluate[bool](js, chromedp.EvalAwaitPromise))
		if err != nil || !sent {
			t.Fatalf("%s: the script: %v (beacon queued: %v)", what, err, sent)
		}
	}
	api := s.Base + "/api/ark"
	signIn, err := url.Parse(api + "/id/ark:12345/x5a1")
	if err != nil {
		t.Fatal(err)
	}
	signIn.User = url.UserPassword("alice", "alice-pw")
	run("signing in through basic_auth", signIn.String(), "")
	before := siteState(t, s)

	for _, page := range []string{"http://localhost:" + port + "/", "http://127.0.0.1:" + port + "/"} {
		run("a page of "+page, page, script(api, "ark:12345/x5b1", "ark:12345/x5a1", "ark:12345/x5a2"))
	}
	if after := siteState(t, s); after != before {
		t.Errorf("pages of other origins changed the site through the browser:\nbefore:\n%s\nafter:\n%s", before, after)
	}

	// The same script in a page of the site writes, as alice.
	run("a page of the site", api+"/id/ark:12345/x5a1", script(api, "ark:12345/x5s2", "ark:12345/x5s1", "ark:12345/x5s3"))
	testkit.WaitFor(t, "the site's own beacon", func() bool {
		return s.call("GET", "/id/ark:12345/x5s2", "", boss...).Status == http.StatusOK
	})
	expect(t, "the site's own withdrawal", s.call("GET", "/id/ark:12345/x5s1", "", boss...), http.StatusOK, `"by": "person:alice"`)
	expect(t, "the site's own withdrawal", s.call("GET", "/id/ark:12345/x5s1", "", boss...), http.StatusOK, `"status": 410`)
	expect(t, "the site's own bulk", s.call("GET", "/id/ark:12345/x5s3", "", boss...), http.StatusOK, `"target": "https://phish.example/bulk"`)
	expect(t, "the site's own retarget", s.call("GET", "/id/ark:12345/x5a2", "", boss...), http.StatusOK, `"target": "https://phish.example/x5a2"`)
}
