package cli

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
)

func TestResolveARK(t *testing.T) {
	tests := []struct {
		name         string
		ark          string
		maxRedirects *int // nil means 10
		replies      map[string]testkit.Reply
		wantState    string // "" means failure
		wantURI      string // with "{srv}" for the server's URL
		wantOut      string // with "{srv}"; checked only when not empty
		wantErr      string // a part of the error
	}{
		{
			name: "302 then 200 is direct",
			ark:  "ark:/12-345/x5",
			replies: map[string]testkit.Reply{
				"/ark:12345/x5": {Status: http.StatusFound, Location: "/content/x5"},
				"/content/x5":   {Status: http.StatusOK, Location: ""},
			},
			wantState: stateDirect,
			wantURI:   "{srv}/content/x5",
			wantOut: "302 {srv}/ark:12345/x5 -> {srv}/content/x5\n" +
				"200 {srv}/content/x5\n" +
				"direct: {srv}/content/x5\n",
		},
		{
			name: "302, 303, 200 is related",
			ark:  "ark:12345/x5",
			replies: map[string]testkit.Reply{
				"/ark:12345/x5":      {Status: http.StatusFound, Location: "{srv}/thing/x5"},
				"/thing/x5":          {Status: http.StatusSeeOther, Location: "description"},
				"/thing/description": {Status: http.StatusOK, Location: ""},
			},
			wantState: stateRelated,
			wantURI:   "{srv}/thing/description",
			wantOut: "302 {srv}/ark:12345/x5 -> {srv}/thing/x5\n" +
				"303 {srv}/thing/x5 -> {srv}/thing/description\n" +
				"200 {srv}/thing/description\n" +
				"related: {srv}/thing/description\n",
		},
		{
			name: "a 303 before a 307 still makes it related",
			ark:  "ark:12345/x5",
			replies: map[string]testkit.Reply{
				"/ark:12345/x5": {Status: http.StatusSeeOther, Location: "/a"},
				"/a":            {Status: http.StatusTemporaryRedirect, Location: "/b"},
				"/b":            {Status: http.StatusNoContent, Location: ""},
			},
			wantState: stateRelated,
			wantURI:   "{srv}/b",
		},
		{
			name:      "200 at once is direct",
			ark:       "ark:12345/x5",
			replies:   map[string]testkit.Reply{"/ark:12345/x5": {Status: http.StatusOK, Location: ""}},
			wantState: stateDirect,
			wantURI:   "{srv}/ark:12345/x5",
			wantOut:   "200 {srv}/ark:12345/x5\ndirect: {srv}/ark:12345/x5\n",
		},
		{
			name: "301 and 308 are followed too, 304 is success",
			ark:  "ark:12345/x5",
			replies: map[string]testkit.Reply{
				"/ark:12345/x5": {Status: http.StatusMovedPermanently, Location: "/a"},
				"/a":            {Status: http.StatusPermanentRedirect, Location: "/b"},
				"/b":            {Status: http.StatusNotModified, Location: ""},
			},
			wantState: stateDirect,
			wantURI:   "{srv}/b",
		},
		{
			name: "the inflection is kept, the fragment dropped",
			ark:  "ark:/12345/x5.pdf.en?info#top",
			replies: map[string]testkit.Reply{
				"/ark:12345/x5.en.pdf?info": {Status: http.StatusOK, Location: ""},
			},
			wantState: stateDirect,
			wantURI:   "{srv}/ark:12345/x5.en.pdf?info",
		},
		{
			name: "a query that is not URI-safe is percent-encoded",
			ark:  "ark:12345/x5?a b=é",
			replies: map[string]testkit.Reply{
				"/ark:12345/x5?a%20b=%C3%A9": {Status: http.StatusOK, Location: ""},
			},
			wantState: stateDirect,
			wantURI:   "{srv}/ark:12345/x5?a%20b=%C3%A9",
		},
		{
			name: "a non-http Location ends with success",
			ark:  "ark:12345/x5",
			replies: map[string]testkit.Reply{
				"/ark:12345/x5": {Status: http.StatusFound, Location: "ftp://files.example.org/x5"},
			},
			wantState: stateDirect,
			wantURI:   "ftp://files.example.org/x5",
			wantOut:   "302 {srv}/ark:12345/x5 -> ftp://files.example.org/x5\ndirect: ftp://files.example.org/x5\n",
		},
		{
			name: "a 303 to a URN is related",
			ark:  "ark:12345/x5",
			replies: map[string]testkit.Reply{
				"/ark:12345/x5": {Status: http.StatusSeeOther, Location: "urn:isbn:0451450523"},
			},
			wantState: stateRelated,
			wantURI:   "urn:isbn:0451450523",
		},
		{
			name: "loop",
			ark:  "ark:12345/x5",
			replies: map[string]testkit.Reply{
				"/ark:12345/x5": {Status: http.StatusFound, Location: "/a"},
				"/a":            {Status: http.StatusFound, Location: "/ark:12345/x5"},
			},
			wantErr: "redirect loop: {srv}/ark:12345/x5 was already requested",
		},
		{
			name:    "a redirect to itself is a loop",
			ark:     "ark:12345/x5",
			replies: map[string]testkit.Reply{"/ark:12345/x5": {Status: http.StatusTemporaryRedirect, Location: "x5"}},
			wantErr: "redirect loop",
		},
		{
			name:    "404",
			ark:     "ark:12345/gone",
			replies: map[string]testkit.Reply{},
			wantErr: "{srv}/ark:12345/gone answered 404 Not Found",
			wantOut: "404 {srv}/ark:12345/gone\n",
		},
		{
			name: "404 after a redirect",
			ark:  "ark:12345/x5",
			replies: map[string]testkit.Reply{
				"/ark:12345/x5": {Status: http.StatusFound, Location: "/missing"},
			},
			wantErr: "answered 404",
		},
		{
			name:    "500",
			ark:     "ark:12345/x5",
			replies: map[string]testkit.Reply{"/ark:12345/x5": {Status: http.StatusInternalServerError, Location: ""}},
			wantErr: "answered 500",
		},
		{
			name:    "other statuses are failures",
			ark:     "ark:12345/x5",
			replies: map[string]testkit.Reply{"/ark:12345/x5": {Status: http.StatusAccepted, Location: ""}},
			wantErr: "answered 202 Accepted",
		},
		{
			name:    "missing Location",
			ark:     "ark:12345/x5",
			replies: map[string]testkit.Reply{"/ark:12345/x5": {Status: http.StatusFound, Location: ""}},
			wantErr: "302 from {srv}/ark:12345/x5: no Location header",
			wantOut: "302 {srv}/ark:12345/x5\n",
		},
		{
			name:    "invalid Location",
			ark:     "ark:12345/x5",
			replies: map[string]testkit.Reply{"/ark:12345/x5": {Status: http.StatusFound, Location: "http://[::1/x"}},
			wantErr: `Location header "http://[::1/x"`,
		},
		{
			name: "too many redirects",
			ark:  "ark:12345/x5",
			replies: map[string]testkit.Reply{
				"/ark:12345/x5": {Status: http.StatusFound, Location: "/1"},
				"/1":            {Status: http.StatusFound, Location: "/2"},
				"/2":            {Status: http.StatusFound, Location: "/3"},
				"/3":            {Status: http.StatusOK, Location: ""},
			},
			maxRedirects: new(2),
			wantErr:      "more than 2 redirects",
		},
		{
			name: "exactly max_redirects redirects is fine",
			ark:  "ark:12345/x5",
			replies: map[string]testkit.Reply{
				"/ark:12345/x5": {Status: http.StatusFound, Location: "/1"},
				"/1":            {Status: http.StatusFound, Location: "/2"},
				"/2":            {Status: http.StatusOK, Location: ""},
			},
			maxRedirects: new(2),
			wantState:    stateDirect,
			wantURI:      "{srv}/2",
		},
		{
			name:         "max_redirects 0 fails on the first redirect",
			ark:          "ark:12345/x5",
			replies:      map[string]testkit.Reply{"/ark:12345/x5": {Status: http.StatusFound, Location: "ftp://example.org/"}},
			maxRedirects: new(0),
			wantErr:      "more than 0 redirects",
		},
		{
			name:    "a URN is not an ARK",
			ark:     "urn:isbn:0451450523",
			wantErr: `urn:isbn:0451450523 is not an ARK: not an identifier at byte 0`,
			wantOut: "-",
		},
		{
			name:    "a pseudo-ARK is not an ARK",
			ark:     "ark:/12345",
			wantErr: `ark:/12345 is not an ARK: not an identifier at byte 10`,
			wantOut: "-",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := testkit.ChainServer(t, tt.replies)
			fill := func(s string) string { return strings.ReplaceAll(s, "{srv}", srv.URL) }
			maxRedirects := 10
			if tt.maxRedirects != nil {
				maxRedirects = *tt.maxRedirects
			}
			opts := resolveOptions{Resolver: srv.URL, MaxRedirects: maxRedirects, Method: http.MethodHead}
			var out bytes.Buffer
			// srv.Client follows redirects by default: resolveARK must not.
			res, err := resolveARK(context.Background(), srv.Client(), opts, tt.ark, &out)
			if tt.wantState == "" {
				if err == nil || !strings.Contains(err.Error(), fill(tt.wantErr)) {
					t.Errorf("err = %v, want one containing %q", err, fill(tt.wantErr))
				}
			} else {
				if err != nil {
					t.Fatalf("err = %v\noutput:\n%s", err, out.String())
				}
				want := clientResult{State: tt.wantState, URI: fill(tt.wantURI)}
				if res != want {
					t.Errorf("resolution = %+v, want %+v", res, want)
				}
			}
			switch tt.wantOut {
			case "":
			case "-":
				if out.Len() != 0 {
					t.Errorf("output = %q, want none", out.String())
				}
			default:
				if out.String() != fill(tt.wantOut) {
					t.Errorf("output:\n%s\nwant:\n%s", out.String(), fill(tt.wantOut))
				}
			}
		})
	}
}

func TestResolveARKRequests(t *testing.T) {
	var (
		mu  sync.Mutex
		got []string
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, r.Method+" "+r.URL.RequestURI())
	}))
	defer srv.Close()
	for _, tt := range []struct{ resolver, method, want string }{
		{srv.URL, http.MethodHead, "HEAD /ark:12345/x5"},
		{srv.URL + "/", http.MethodGet, "GET /ark:12345/x5"},
		{srv.URL + "/prefix/", http.MethodGet, "GET /prefix/ark:12345/x5"},
	} {
		mu.Lock()
		got = nil
		mu.Unlock()
		opts := resolveOptions{Resolver: tt.resolver, MaxRedirects: 1, Method: tt.method}
		if _, err := resolveARK(context.Background(), srv.Client(), opts, "ark:/12345/x5", &bytes.Buffer{}); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		if len(got) != 1 || got[0] != tt.want {
			t.Errorf("resolver %s, %s: requests %q, want [%q]", tt.resolver, tt.method, got, tt.want)
		}
		mu.Unlock()
	}
}

func TestResolveARKBadResolver(t *testing.T) {
	for _, resolver := range []string{"", "n2t.net", "ftp://n2t.net", "https://", "http://[::1"} {
		opts := resolveOptions{Resolver: resolver, MaxRedirects: 1, Method: http.MethodHead}
		_, err := resolveARK(context.Background(), http.DefaultClient, opts, "ark:12345/x5", &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), "is not an http or https URL") {
			t.Errorf("resolver %q: err = %v", resolver, err)
		}
	}
}

func TestResolveARKTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	opts := resolveOptions{Resolver: srv.URL, MaxRedirects: 1, Method: http.MethodHead}
	if _, err := resolveARK(ctx, srv.Client(), opts, "ark:12345/x5", &bytes.Buffer{}); err == nil {
		t.Error("no error from a resolver that never answers")
	}
}
