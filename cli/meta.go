package cli

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/caddy-ark/caddy-ark/api"
	"github.com/spf13/cobra"
)

// metaFromFlags reads --meta-file, then each --meta key=value over it:
// metadata to set, a nil value for a key to remove (--meta key=, or null
// in the file). nil when neither flag is given.
func metaFromFlags(cmd *cobra.Command) (map[string]*string, error) {
	var meta map[string]*string
	if file, _ := cmd.Flags().GetString("meta-file"); file != "" {
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("--meta-file: %w", err)
		}
		if meta, err = api.ParseMetaPatch(data); err != nil {
			return nil, fmt.Errorf("--meta-file %s: %v: give a JSON object of strings, such as {\"who\": \"Example Museum\"}", file, terminalSafe(err.Error()))
		}
	}
	pairs, _ := cmd.Flags().GetStringArray("meta")
	for _, pair := range pairs {
		key, value, ok := strings.Cut(pair, "=")
		if !ok || key == "" {
			return nil, fmt.Errorf("--meta %q: give key=value, or key= to remove the key", pair)
		}
		if meta == nil {
			meta = map[string]*string{}
		}
		meta[key] = nil
		if value != "" {
			meta[key] = &value
		}
	}
	return meta, nil
}

// mintBindFromFlags reads the binding of `caddy ark mint`: target and the
// flags bindFlags added. nil when there is nothing to bind.
func mintBindFromFlags(cmd *cobra.Command, target string) (*api.BindRequest, error) {
	meta, err := metaFromFlags(cmd)
	if err != nil || (target == "" && meta == nil) {
		return nil, err
	}
	b := bindFromFlags(cmd, target)
	for k, v := range meta {
		if v == nil {
			continue // a new name has no metadata to remove
		}
		if b.Meta == nil {
			b.Meta = map[string]string{}
		}
		b.Meta[k] = *v
	}
	return b, nil
}

// bindPatchFromFlags builds the merge patch of `caddy ark bind <id>
// [<target>]`: the target if given, and each flag given, so that the
// binding keeps what the command is not told to change.
func bindPatchFromFlags(cmd *cobra.Command, args []string) (*api.BindPatch, error) {
	patch := &api.BindPatch{}
	if len(args) == 2 {
		patch.SetTarget, patch.To.Target = true, args[1]
	}
	if cmd.Flags().Changed("status") {
		patch.SetStatus = true
		patch.To.Status, _ = cmd.Flags().GetInt("status")
	}
	if cmd.Flags().Changed("no-passthrough") {
		noPass, _ := cmd.Flags().GetBool("no-passthrough")
		pass := !noPass
		patch.SetPassthrough, patch.To.Passthrough = true, &pass
	}
	meta, err := metaFromFlags(cmd)
	if err != nil {
		return nil, err
	}
	if meta != nil {
		patch.SetMeta, patch.Meta = true, meta
	}
	if patch.Empty() {
		return nil, errors.New("nothing to change: give a target, --status, --no-passthrough, --meta or --meta-file")
	}
	return patch, nil
}
