package testkit

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// Reply is what the test resolver answers for one request URI.
type Reply struct {
	Status   int
	Location string // sent as the Location header when not empty
}

// ChainServer serves replies keyed by request URI (escaped path and query);
// any other URI gets 404. The Location values may use "{srv}" for the
// server's own URL.
func ChainServer(t *testing.T, replies map[string]Reply) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rep, ok := replies[r.URL.RequestURI()]
		if !ok {
			http.NotFound(w, r)
			return
		}
		if rep.Location != "" {
			w.Header().Set("Location", strings.ReplaceAll(rep.Location, "{srv}", "http://"+r.Host))
		}
		w.WriteHeader(rep.Status)
	}))
	t.Cleanup(srv.Close)
	return srv
}
