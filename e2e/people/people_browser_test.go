package people

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
	"github.com/caddy-ark/caddy-ark/internal/testkit"
	"github.com/chromedp/chromedp"
)

// TestPeopleConsoleInBrowser: in a real Chromium, a person signs in to the
// console through Caddy's basic_auth (the credentials in the address, as
// a user types them at the browser's prompt), sees who is signed in,
// edits within their scope, is refused a write outside it, and is
// refused once the configuration no longer lists them.
func TestPeopleConsoleInBrowser(t *testing.T) {
	users := map[string]string{"alice": "alice-pw", "bob": "bob-pw"}
	auth := basicAuth(t, "/api/ark/*", users)
	s := startPeopleSite(t, auth, `people basic_auth
				person alice write:ark:12345/x5 read:ark:12345
				person bob write:ark:12345`)
	bob := []string{"basic", "bob:bob-pw"}
	expect(t, "bob binds x5a1", s.call("PUT", "/id/ark:12345/x5a1", `{"target": "https://repo.example.org/a1"}`, bob...), http.StatusCreated, "")
	expect(t, "bob binds y7b1", s.call("PUT", "/id/ark:12345/y7b1", `{"target": "https://repo.example.org/b1"}`, bob...), http.StatusCreated, "")

	ctx := testkit.Browser(t)
	load := func(what string, actions ...chromedp.Action[chromedp.Void]) int64 {
		t.Helper()
		tctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		resp, err := chromedp.RunResponse(tctx, actions...)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return resp.Status
	}
	text := func(sel string) string {
		t.Helper()
		tctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		got, err := chromedp.Run(tctx, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("reading %s: %v", sel, err)
		}
		return got
	}
	ui := s.Base + caddytest.ConsoleUI

	signIn, err := url.Parse(ui)
	if err != nil {
		t.Fatal(err)
	}
	signIn.User = url.UserPassword("alice", "alice-pw")
	if status := load("signing in through basic_auth", chromedp.Navigate(signIn.String())); status != http.StatusOK {
		t.Fatalf("the front page through basic_auth: %d", status)
	}
	if got := text("header .signout"); !strings.Contains(got, "person:alice") {
		t.Errorf("the header says %q, want it to name person:alice", got)
	}
	if got := text("#key-h + p"); !strings.Contains(got, "person:alice") {
		t.Errorf("the front page says %q, want person:alice", got)
	}
	// She may write under x5: the menu offers her what changes
	// identifiers, and Mint for the x5 minter alone (issue 36, item 15).
	if menu, err := chromedp.Run(ctx, chromedp.Evaluate[string](`[...document.querySelectorAll("header nav a")].map(a => a.textContent).join(" ")`)); err != nil || menu != "Home Search Mint Retarget Import Changes" {
		t.Errorf("alice's menu: %q (%v)", menu, err)
	}
	if status := load("the mint page", chromedp.Navigate(ui+"mint")); status != http.StatusOK {
		t.Fatalf("alice's mint page: %d", status)
	}
	if shoulders, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#shoulder option")].map(o => o.textContent)`)); err != nil || len(shoulders) != 1 || shoulders[0] != "ark:12345/x5" {
		t.Errorf("alice's mint page offers %q (%v), want ark:12345/x5 alone", shoulders, err)
	}

	// Within her scope: the edit is made, and recorded as hers.
	if status := load("the edit form of x5a1", chromedp.Navigate(ui+"edit/ark:12345/x5a1")); status != http.StatusOK {
		t.Fatalf("the edit form of x5a1: %d", status)
	}
	testkit.RunBrowser(t, ctx, "changing the target", chromedp.SetValue(chromedp.ID("target"), "https://new.example.org/a1"))
	if status := load("saving x5a1", chromedp.Click(chromedp.CSS(`main form button[type=submit]`))); status != http.StatusOK {
		t.Fatalf("saving x5a1: %d %s", status, text("main"))
	}
	if by := strings.Join(s.historyBy("ark:12345/x5a1", bob...), " "); by != "person:bob person:alice" {
		t.Errorf("the history of x5a1 names %q, want person:bob person:alice", by)
	}
	if status := load("the page of x5a1", chromedp.Navigate(ui+"id/ark:12345/x5a1")); status != http.StatusOK {
		t.Fatalf("the page of x5a1: %d", status)
	}
	if got := text(`[aria-label="History"] tbody tr:first-child td:nth-child(2)`); !strings.Contains(got, "person:alice") {
		t.Errorf("the console's history (newest first) shows the last change by %q, want person:alice", got)
	}

	// Outside it, where she may only read: no Edit on its page, and its
	// edit form is refused with the reason before anything is filled in
	// (issue 36, item 15); nothing changes.
	if status := load("the page of y7b1", chromedp.Navigate(ui+"id/ark:12345/y7b1")); status != http.StatusOK {
		t.Fatalf("the page of y7b1: %d", status)
	}
	if actions, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("main a.button")].map(a => a.textContent)`)); err != nil || len(actions) != 0 {
		t.Errorf("the page of y7b1 offers alice %q (%v)", actions, err)
	}
	if status := load("the edit form of y7b1", chromedp.Navigate(ui+"edit/ark:12345/y7b1")); status != http.StatusForbidden {
		t.Errorf("the edit form of y7b1 outside alice's scope: %d, want 403", status)
	}
	if got := text("main"); !strings.Contains(got, "person:alice may not write ark:12345/y7b1") {
		t.Errorf("the refusal says %q", got)
	}
	if forms, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("main form").length`)); err != nil || forms != 0 {
		t.Errorf("the refusal offers %d forms (%v)", forms, err)
	}
	if by := strings.Join(s.historyBy("ark:12345/y7b1", bob...), " "); by != "person:bob" {
		t.Errorf("the history of y7b1 names %q, want person:bob alone", by)
	}

	// Taken out of the configuration: her next page is refused.
	s.reload(auth, `people basic_auth
				person bob write:ark:12345`)
	if status := load("the front page after alice leaves", chromedp.Navigate(ui)); status != http.StatusForbidden {
		t.Errorf("the front page after alice is taken out: %d, want 403", status)
	}
	if got := text("main"); !strings.Contains(got, "person alice has no access here") {
		t.Errorf("the refusal says %q", got)
	}
}
