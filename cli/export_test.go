package cli

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestAPIExportClientIncomplete: caddy ark export --api fails, with one
// line, when the answer is not one complete JSON value.
func TestAPIExportClientIncomplete(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{`{"entries": [` + "\n", "cut short"},
		{`{"entries": [{"id": "ark:12345/x5a"`, "cut short"},
		{`{"entries": []} {"entries": []}`, "not one JSON"},
		{`{"entries": [}`, "not one JSON"},
		{"", "cut short"},
		{`{"entries": []}` + "\n", ""},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, c.body)
		}))
		api, err := newAPIClient(srv.URL, "k", srv.Client())
		if err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		err = api.exportTable(context.Background(), &out)
		srv.Close()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q: %v", c.body, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n")):
			t.Errorf("%q: %v, want an error saying %q", c.body, err, c.want)
		case out.String() != c.body && c.want == "":
			t.Errorf("%q: wrote %q", c.body, out.String())
		}
	}
}
