package console

import (
	"net/http"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
)

// Opening an identifier that a table assigns shows it, read only: what
// the table says, which file assigns it, no Edit or Withdraw; its edit
// form is still refused, as the API refuses it.
func TestConsoleShowsATableIdentifierReadOnly(t *testing.T) {
	s := caddytest.StartConsoleSite(t, "ui")
	for _, name := range []string{"editor", "reader"} {
		u := s.SignIn(name)
		got := u.Get("id/ark:12345/t1")
		if got.Status != http.StatusOK {
			t.Fatalf("%s opens ark:12345/t1: %d\n%s", name, got.Status, got.Body)
		}
		for _, want := range []string{"comes from a table, " + s.Table, "https://table.example.org/t1", "redirects (302)", `<dt>Source</dt><dd>` + s.Table + `</dd>`} {
			if !strings.Contains(got.Body, want) {
				t.Errorf("%s: the page of ark:12345/t1 does not say %q:\n%s", name, want, got.Body)
			}
		}
		for _, offered := range []string{"edit/ark:12345/t1", "withdraw/ark:12345/t1", "Conflict"} {
			if strings.Contains(got.Body, offered) {
				t.Errorf("%s: the page of ark:12345/t1 has %q:\n%s", name, offered, got.Body)
			}
		}
	}
	if got := s.SignIn("editor").Get("edit/ark:12345/t1"); got.Status != http.StatusConflict || !strings.Contains(got.Body, "assigned by") {
		t.Errorf("the edit form of a table's identifier: %d\n%s", got.Status, got.Body)
	}
}
