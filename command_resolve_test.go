package ark

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// reply is what the test resolver answers for one request URI.
type reply struct {
	status   int
	location string // sent as the Location header when not empty
}

// chainServer serves replies keyed by request URI (escaped path and query);
// any other URI gets 404. The Location values may use "{srv}" for the
// server's own URL.
func chainServer(t *testing.T, replies map[string]reply) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rep, ok := replies[r.URL.RequestURI()]
		if !ok {
			http.NotFound(w, r)
			return
		}
		if rep.location != "" {
			w.Header().Set("Location", strings.ReplaceAll(rep.location, "{srv}", "http://"+r.Host))
		}
		w.WriteHeader(rep.status)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestResolveARK(t *testing.T) {
	tests := []struct {
		name         string
		ark          string
		maxRedirects *int // nil means 10
		replies      map[string]reply
		wantState    string // "" means failure
		wantURI      string // with "{srv}" for the server's URL
		wantOut      string // with "{srv}"; checked only when not empty
		wantErr      string // a part of the error
	}{
		{
			name: "302 then 200 is direct",
			ark:  "ark:/12-345/x5",
			replies: map[string]reply{
				"/ark:12345/x5": {http.StatusFound, "/content/x5"},
				"/content/x5":   {http.StatusOK, ""},
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
			replies: map[string]reply{
				"/ark:12345/x5":      {http.StatusFound, "{srv}/thing/x5"},
				"/thing/x5":          {http.StatusSeeOther, "description"},
				"/thing/description": {http.StatusOK, ""},
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
			replies: map[string]reply{
				"/ark:12345/x5": {http.StatusSeeOther, "/a"},
				"/a":            {http.StatusTemporaryRedirect, "/b"},
				"/b":            {http.StatusNoContent, ""},
			},
			wantState: stateRelated,
			wantURI:   "{srv}/b",
		},
		{
			name:      "200 at once is direct",
			ark:       "ark:12345/x5",
			replies:   map[string]reply{"/ark:12345/x5": {http.StatusOK, ""}},
			wantState: stateDirect,
			wantURI:   "{srv}/ark:12345/x5",
			wantOut:   "200 {srv}/ark:12345/x5\ndirect: {srv}/ark:12345/x5\n",
		},
		{
			name: "301 and 308 are followed too, 304 is success",
			ark:  "ark:12345/x5",
			replies: map[string]reply{
				"/ark:12345/x5": {http.StatusMovedPermanently, "/a"},
				"/a":            {http.StatusPermanentRedirect, "/b"},
				"/b":            {http.StatusNotModified, ""},
			},
			wantState: stateDirect,
			wantURI:   "{srv}/b",
		},
		{
			name: "the inflection is kept, the fragment dropped",
			ark:  "ark:/12345/x5.pdf.en?info#top",
			replies: map[string]reply{
				"/ark:12345/x5.en.pdf?info": {http.StatusOK, ""},
			},
			wantState: stateDirect,
			wantURI:   "{srv}/ark:12345/x5.en.pdf?info",
		},
		{
			name: "a query that is not URI-safe is percent-encoded",
			ark:  "ark:12345/x5?a b=é",
			replies: map[string]reply{
				"/ark:12345/x5?a%20b=%C3%A9": {http.StatusOK, ""},
			},
			wantState: stateDirect,
			wantURI:   "{srv}/ark:12345/x5?a%20b=%C3%A9",
		},
		{
			name: "a non-http Location ends with success",
			ark:  "ark:12345/x5",
			replies: map[string]reply{
				"/ark:12345/x5": {http.StatusFound, "ftp://files.example.org/x5"},
			},
			wantState: stateDirect,
			wantURI:   "ftp://files.example.org/x5",
			wantOut:   "302 {srv}/ark:12345/x5 -> ftp://files.example.org/x5\ndirect: ftp://files.example.org/x5\n",
		},
		{
			name: "a 303 to a URN is related",
			ark:  "ark:12345/x5",
			replies: map[string]reply{
				"/ark:12345/x5": {http.StatusSeeOther, "urn:isbn:0451450523"},
			},
			wantState: stateRelated,
			wantURI:   "urn:isbn:0451450523",
		},
		{
			name: "loop",
			ark:  "ark:12345/x5",
			replies: map[string]reply{
				"/ark:12345/x5": {http.StatusFound, "/a"},
				"/a":            {http.StatusFound, "/ark:12345/x5"},
			},
			wantErr: "redirect loop: {srv}/ark:12345/x5 was already requested",
		},
		{
			name:    "a redirect to itself is a loop",
			ark:     "ark:12345/x5",
			replies: map[string]reply{"/ark:12345/x5": {http.StatusTemporaryRedirect, "x5"}},
			wantErr: "redirect loop",
		},
		{
			name:    "404",
			ark:     "ark:12345/gone",
			replies: map[string]reply{},
			wantErr: "{srv}/ark:12345/gone answered 404 Not Found",
			wantOut: "404 {srv}/ark:12345/gone\n",
		},
		{
			name: "404 after a redirect",
			ark:  "ark:12345/x5",
			replies: map[string]reply{
				"/ark:12345/x5": {http.StatusFound, "/missing"},
			},
			wantErr: "answered 404",
		},
		{
			name:    "500",
			ark:     "ark:12345/x5",
			replies: map[string]reply{"/ark:12345/x5": {http.StatusInternalServerError, ""}},
			wantErr: "answered 500",
		},
		{
			name:    "other statuses are failures",
			ark:     "ark:12345/x5",
			replies: map[string]reply{"/ark:12345/x5": {http.StatusAccepted, ""}},
			wantErr: "answered 202 Accepted",
		},
		{
			name:    "missing Location",
			ark:     "ark:12345/x5",
			replies: map[string]reply{"/ark:12345/x5": {http.StatusFound, ""}},
			wantErr: "302 from {srv}/ark:12345/x5: no Location header",
			wantOut: "302 {srv}/ark:12345/x5\n",
		},
		{
			name:    "invalid Location",
			ark:     "ark:12345/x5",
			replies: map[string]reply{"/ark:12345/x5": {http.StatusFound, "http://[::1/x"}},
			wantErr: `Location header "http://[::1/x"`,
		},
		{
			name: "too many redirects",
			ark:  "ark:12345/x5",
			replies: map[string]reply{
				"/ark:12345/x5": {http.StatusFound, "/1"},
				"/1":            {http.StatusFound, "/2"},
				"/2":            {http.StatusFound, "/3"},
				"/3":            {http.StatusOK, ""},
			},
			maxRedirects: new(2),
			wantErr:      "more than 2 redirects",
		},
		{
			name: "exactly max_redirects redirects is fine",
			ark:  "ark:12345/x5",
			replies: map[string]reply{
				"/ark:12345/x5": {http.StatusFound, "/1"},
				"/1":            {http.StatusFound, "/2"},
				"/2":            {http.StatusOK, ""},
			},
			maxRedirects: new(2),
			wantState:    stateDirect,
			wantURI:      "{srv}/2",
		},
		{
			name:         "max_redirects 0 fails on the first redirect",
			ark:          "ark:12345/x5",
			replies:      map[string]reply{"/ark:12345/x5": {http.StatusFound, "ftp://example.org/"}},
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
			srv := chainServer(t, tt.replies)
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

func TestArkCommandResolve(t *testing.T) {
	srv := chainServer(t, map[string]reply{
		"/ark:12345/x5": {http.StatusSeeOther, "/about"},
		"/about":        {http.StatusOK, ""},
	})
	out, _, err := runArkCommand(t, "", "resolve", "--resolver", srv.URL, "--method", "get", "ark:/12345/x5")
	if err != nil || !strings.HasSuffix(out, "related: "+srv.URL+"/about\n") {
		t.Errorf("resolve: out %q, err %v", out, err)
	}
	for _, args := range [][]string{
		{"resolve", "--resolver", srv.URL, "ark:12345/nothing"},
		{"resolve", "--resolver", srv.URL, "--max-redirects", "0", "ark:12345/x5"},
		{"resolve", "--method", "PUT", "ark:12345/x5"},
		{"resolve", "--max-redirects", "-1", "ark:12345/x5"},
		{"resolve"},
		{"resolve", "ark:12345/a", "ark:12345/b"},
	} {
		if _, _, err := runArkCommand(t, "", args...); err == nil {
			t.Errorf("%q: no error", args)
		}
	}
}

func TestBinaryResolve(t *testing.T) {
	srv := chainServer(t, map[string]reply{
		"/ark:12345/x5":   {http.StatusFound, "/content"},
		"/content":        {http.StatusOK, ""},
		"/ark:12345/loop": {http.StatusFound, "/ark:12345/loop"},
	})
	out, errOut, status := runCaddy(t, "", "ark", "resolve", "--resolver", srv.URL, "--timeout", "10s", "ark:/12-345/x5")
	want := "302 " + srv.URL + "/ark:12345/x5 -> " + srv.URL + "/content\n" +
		"200 " + srv.URL + "/content\n" +
		"direct: " + srv.URL + "/content\n"
	if out != want || status != 0 {
		t.Errorf("resolve: status %d, stdout:\n%s\nwant:\n%s\nstderr: %s", status, out, want, errOut)
	}
	_, errOut, status = runCaddy(t, "", "ark", "resolve", "--resolver", srv.URL, "ark:12345/loop")
	if status != 1 || !strings.Contains(errOut, "redirect loop") {
		t.Errorf("resolve a loop: status %d, stderr %q", status, errOut)
	}
}

// The client follows the project's own handler, in process: a redirect to
// the referent, an answer in place, and a 303 to a related resource.
func TestResolveARKAgainstTheHandler(t *testing.T) {
	s := startSite(t, `
	root * `+testRoot(t)+`
	ark {
		naan 12345
		map ark:12345/x5wf6789 /objects/x5wf6789.html
		map ark:12345/x5abcd /objects/x5wf6789.html 302
		map ark:12345/x5efgh /objects/thesis.html 303
		foreign 404
	}
	file_server`)
	for id, want := range map[string]string{
		"ark:/12345/x5-wf6789": "direct: " + s.base + "/ark:12345/x5wf6789\n",
		"ark:12345/x5abcd":     "direct: " + s.base + "/objects/x5wf6789.html\n",
		"ARK:/12345/x5efgh":    "related: " + s.base + "/objects/thesis.html\n",
	} {
		var out strings.Builder
		if _, err := resolveARK(context.Background(), http.DefaultClient, resolveOptions{Resolver: s.base, MaxRedirects: 5, Method: http.MethodGet}, id, &out); err != nil {
			t.Errorf("%s: %v\n%s", id, err, out.String())
			continue
		}
		if !strings.HasSuffix(out.String(), want) {
			t.Errorf("%s: got\n%swant the last line %q", id, out.String(), want)
		}
	}
	var out strings.Builder
	if _, err := resolveARK(context.Background(), http.DefaultClient, resolveOptions{Resolver: s.base, MaxRedirects: 5, Method: http.MethodHead}, "ark:12345/unknown", &out); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("unknown ARK: err %v", err)
	}
}
