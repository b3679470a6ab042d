package caddytest

import (
	"bytes"
	"strings"
	"testing"

	caddycmd "github.com/caddyserver/caddy/v2/cmd"
	"github.com/spf13/cobra"
)

// RunArkCommand runs the registered `ark` command in process, under a root
// command configured like Caddy's, with args after "caddy ark". The test
// package registers it by importing caddy-ark's root package.
func RunArkCommand(t *testing.T, stdin string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	c, ok := caddycmd.Commands()["ark"]
	if !ok {
		t.Fatal(`no "ark" command registered`)
	}
	ark := &cobra.Command{Use: c.Name + " " + c.Usage, Short: c.Short}
	c.CobraFunc(ark)
	root := &cobra.Command{Use: "caddy", SilenceUsage: true}
	root.AddCommand(ark)
	var out, errOut bytes.Buffer
	root.SetArgs(append([]string{"ark"}, args...))
	root.SetIn(strings.NewReader(stdin))
	root.SetOut(&out)
	root.SetErr(&errOut)
	err = root.Execute()
	return out.String(), errOut.String(), err
}
