package api

import (
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

// The names the api and ui blocks offer as suggestions are those they
// take: none is refused as unknown.
func TestSubdirectivesAreKnown(t *testing.T) {
	blocks := map[string][]string{
		"api /api {\n\t%s\n}":                subdirectives,
		"api /api {\n\tui {\n\t\t%s\n\t}\n}": uiSubdirectives,
	}
	for block, names := range blocks {
		for _, name := range names {
			text := strings.Replace(block, "%s", name, 1)
			err := new(API).UnmarshalCaddyfile(caddyfile.NewTestDispenser(text))
			if err != nil && strings.Contains(err.Error(), "unknown") {
				t.Errorf("%q: %v", text, err)
			}
		}
	}
}

// A session too short or not a length of time is refused at load with
// its block's bound; one long enough is taken.
func TestSessionLengths(t *testing.T) {
	refused := map[string]string{
		"api /api {\n\tui {\n\t\tsession 500ms\n\t}\n}":   `api: ui: session: "500ms" is not a length of time of 1s or more, such as 8h`,
		"api /api {\n\tui {\n\t\tsession soon\n\t}\n}":    `api: ui: session: "soon" is not a length of time of 1s or more, such as 8h`,
		"api /api {\n\tezid {\n\t\tsession 30s\n\t}\n}":   `api: ezid: session: "30s" is not a length of time of 1m or more, such as 168h`,
		"api /api {\n\tezid {\n\t\tsession never\n\t}\n}": `api: ezid: session: "never" is not a length of time of 1m or more, such as 168h`,
	}
	for text, want := range refused {
		d := caddyfile.NewTestDispenser(text)
		d.Next()
		err := new(API).UnmarshalCaddyfile(d)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", text, err, want)
		}
	}
	a := new(API)
	d := caddyfile.NewTestDispenser("api /api {\n\tkey k 8254c329a92850f6d539dd376f4816ee2764517da5e0235514af433164480d7a admin\n\tui {\n\t\tsession 8h\n\t}\n\tezid {\n\t\tsession 168h\n\t}\n}")
	d.Next()
	if err := a.UnmarshalCaddyfile(d); err != nil {
		t.Fatal(err)
	}
	if a.UI == nil || time.Duration(a.UI.Session) != 8*time.Hour {
		t.Errorf("ui session: %+v", a.UI)
	}
	if a.EZID == nil || time.Duration(a.EZID.Session) != 168*time.Hour {
		t.Errorf("ezid session: %+v", a.EZID)
	}
}
