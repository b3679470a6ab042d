package answer

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/resolve"
	"github.com/caddy-ark/caddy-ark/table"
	"github.com/caddyserver/caddy/v2"
)

// FuzzRequestTargets: whatever the request path, a target the resolver
// builds from an entry or a template with request data stays under the
// directory the operator wrote, and no segment below it decodes, however
// often, to something starting with "." or holding a backslash, NUL or
// control character. The oracle decodes the whole path until it stops
// changing, independently of segments.go.
func FuzzRequestTargets(f *testing.F) {
	for _, seed := range []string{
		"ark:12345/o1/%2Eenv", "ark:12345/o1/a%252e%252e/b", "ark:12345/o1.en", "ark:12345/t3", "ark:12345/t3x.env",
		"ark:12345/t3%2E%2E%2Fsecret", "ark:12345/o1/%25252e/x", "ark:12345/t3a/b/../c", "ark:12345/o1/%5C..%5Cx",
	} {
		f.Add(seed)
	}
	t, err := table.Load(nil, []table.Entry{{ID: "ark:12345/o1", Target: "/files/"}})
	if err != nil {
		f.Fatal(err)
	}
	rs, err := resolve.New(resolve.Options{Table: t, MaxLength: 1024,
		Templates: []resolve.Template{{Prefix: "ark:12345/t3", Target: "/t/{http.ark.blade}{http.ark.suffix}"}}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, core string) {
		res := rs.Resolve(context.Background(), core)
		if res.Status != 200 {
			return
		}
		repl := caddy.NewReplacer()
		repl.Map((&arkVars{res: res}).get)
		target, err := buildTarget(res, repl, "")
		if err != nil {
			return
		}
		path, _, _ := strings.Cut(target, "?")
		for range 10 {
			decoded, err := url.PathUnescape(path)
			if err != nil || decoded == path {
				break
			}
			path = decoded
		}
		var below string
		switch {
		case strings.HasPrefix(path, "/files/"):
			below = path[len("/files/"):]
		case strings.HasPrefix(path, "/t/"):
			below = path[len("/t/"):]
		default:
			t.Fatalf("%q: target %q left the operator's directory", core, target)
		}
		if strings.ContainsFunc(below, func(c rune) bool { return c < ' ' || c == 0x7f || c == '\\' }) {
			t.Fatalf("%q: target %q holds a backslash or control character once decoded", core, target)
		}
		for seg := range strings.SplitSeq(below, "/") {
			if strings.HasPrefix(seg, ".") {
				t.Fatalf("%q: target %q has a segment starting with \".\" once decoded", core, target)
			}
		}
	})
}
