package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// helpCmd writes the --help text of every command of -bin (walking each
// "Available Commands:" list down) into -out, one file per command.
func helpCmd(args []string) error {
	fl := flag.NewFlagSet("help", flag.ExitOnError)
	bin := fl.String("bin", "", "the caddy binary")
	out := fl.String("out", "", "the directory to write to")
	_ = fl.Parse(args)
	var walk func(path []string) error
	walk = func(path []string) error {
		text, err := exec.Command(*bin, append(path, "--help")...).CombinedOutput()
		if err != nil {
			return fmt.Errorf("caddy %s --help: %v", strings.Join(path, " "), err)
		}
		name := "caddy"
		if len(path) > 0 {
			name += "_" + strings.Join(path, "_")
		}
		if err := os.WriteFile(filepath.Join(*out, name+".txt"), text, 0o644); err != nil {
			return err
		}
		for _, sub := range section(string(text), "Available Commands:") {
			if f := strings.Fields(sub); len(f) > 0 && f[0] != "help" && f[0] != "completion" {
				if err := walk(append(append([]string{}, path...), f[0])); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return walk(nil)
}

// section returns the indented lines under the heading in a help text.
func section(text, heading string) []string {
	var out []string
	in := false
	for _, line := range strings.Split(text, "\n") {
		switch {
		case line == heading:
			in = true
		case in && strings.HasPrefix(line, "  "):
			out = append(out, line)
		case in:
			in = false
		}
	}
	return out
}

// flagLine matches a flag of a help text: shorthand, name, type, usage.
var flagLine = regexp.MustCompile(`^\s+(?:-(\w), )?--([\w-]+)(?: (\w+))?\s{2,}(.*)$`)

// flagDef is one flag as a help text shows it.
type flagDef struct{ short, typ, usage string }

// flags returns the flags of a help text by name.
func flags(text string) map[string]flagDef {
	out := map[string]flagDef{}
	for _, h := range []string{"Flags:", "Global Flags:"} {
		for _, line := range section(text, h) {
			if m := flagLine.FindStringSubmatch(line); m != nil {
				out[m[2]] = flagDef{m[1], m[3], strings.TrimSpace(m[4])}
			}
		}
	}
	return out
}

// helpcmpCmd requires every command of -old to be in -new, with every
// flag of the same name, shorthand and type; it lists the commands and
// flags -new adds, the commands whose help text changed (each must be
// attributed by -additions) and the usage lines whose words changed.
func helpcmpCmd(args []string) error {
	fl := flag.NewFlagSet("helpcmp", flag.ExitOnError)
	oldDir := fl.String("old", "", "the old help texts")
	newDir := fl.String("new", "", "the new help texts")
	attribFile := fl.String("additions", "", "the additions attributed (additions.tsv)")
	_ = fl.Parse(args)
	attrib, err := readAttributions(*attribFile)
	if err != nil {
		return err
	}
	unattributed := 0
	note := func(thing string) {
		if !attrib.report(thing) {
			unattributed++
		}
	}
	oldFiles, _ := filepath.Glob(filepath.Join(*oldDir, "*.txt"))
	newFiles, _ := filepath.Glob(filepath.Join(*newDir, "*.txt"))
	oldNames := map[string]bool{}
	var missing, changed []string
	var nFlags, nArk, nArkFlags, textSame int
	for _, f := range oldFiles {
		name := filepath.Base(f)
		oldNames[name] = true
		cmd := strings.ReplaceAll(strings.TrimSuffix(name, ".txt"), "_", " ")
		ot, _ := os.ReadFile(f)
		nt, err := os.ReadFile(filepath.Join(*newDir, name))
		if err != nil {
			missing = append(missing, "command "+cmd)
			continue
		}
		oBody, oFoot := footer(string(ot))
		nBody, nFoot := footer(string(nt))
		switch {
		case string(ot) == string(nt):
			textSame++
		case oBody == nBody:
			note("help footer: " + cmd)
		default:
			note("help text: " + cmd)
			if oFoot != nFoot {
				note("help footer: " + cmd)
			}
		}
		of, nf := flags(string(ot)), flags(string(nt))
		nFlags += len(of)
		if strings.HasPrefix(cmd, "caddy ark") {
			nArk++
			nArkFlags += len(of)
		}
		for _, k := range sortedKeys(of) {
			o := of[k]
			n, ok := nf[k]
			switch {
			case !ok:
				missing = append(missing, fmt.Sprintf("%s --%s", cmd, k))
			case o.short != n.short || o.typ != n.typ:
				missing = append(missing, fmt.Sprintf("%s --%s: was -%s %s, now -%s %s", cmd, k, o.short, o.typ, n.short, n.typ))
			case o.usage != n.usage:
				changed = append(changed, fmt.Sprintf("%s --%s:\n      old: %s\n      new: %s", cmd, k, o.usage, n.usage))
			}
		}
		for _, k := range sortedKeys(nf) {
			if _, ok := of[k]; !ok {
				note(fmt.Sprintf("flag: %s --%s", cmd, k))
			}
		}
	}
	for _, f := range newFiles {
		if name := filepath.Base(f); !oldNames[name] {
			note("command: " + strings.ReplaceAll(strings.TrimSuffix(name, ".txt"), "_", " "))
		}
	}
	for _, c := range changed {
		fmt.Printf("  usage text changed: %s\n", c)
	}
	fmt.Printf("Commands: %d old (%d under caddy ark), all present: %v; help text identical for %d; flags: %d old (%d under caddy ark), usage text changed for %d\n",
		len(oldFiles), nArk, len(missing) == 0, textSame, nFlags, nArkFlags, len(changed))
	for _, m := range missing {
		fmt.Println("  MISSING or CHANGED:", m)
	}
	if len(missing) > 0 {
		return fmt.Errorf("%d old commands or flags missing or changed", len(missing))
	}
	if unattributed > 0 {
		return fmt.Errorf("%d changes attributed to no issue", unattributed)
	}
	return nil
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// setcmpCmd requires every line of -old to be a line of -new and lists
// the lines -new adds, each attributed by -additions; -what names the
// lines in the report.
func setcmpCmd(args []string) error {
	fl := flag.NewFlagSet("setcmp", flag.ExitOnError)
	oldFile := fl.String("old", "", "the old lines")
	newFile := fl.String("new", "", "the new lines")
	what := fl.String("what", "lines", "what the lines are")
	attribFile := fl.String("additions", "", "the additions attributed (additions.tsv)")
	_ = fl.Parse(args)
	attrib, err := readAttributions(*attribFile)
	if err != nil {
		return err
	}
	read := func(p string) (map[string]bool, error) {
		b, err := os.ReadFile(p)
		set := map[string]bool{}
		for _, l := range strings.Split(string(b), "\n") {
			if l = strings.TrimSpace(l); l != "" {
				set[l] = true
			}
		}
		return set, err
	}
	o, err := read(*oldFile)
	if err != nil {
		return err
	}
	n, err := read(*newFile)
	if err != nil {
		return err
	}
	var gone []string
	for _, k := range sortedKeys(o) {
		if !n[k] {
			gone = append(gone, k)
		}
	}
	added, unattributed := 0, 0
	for _, k := range sortedKeys(n) {
		if !o[k] {
			added++
			if !attrib.report(k) {
				unattributed++
			}
		}
	}
	for _, k := range gone {
		fmt.Printf("  MISSING in new: %s\n", k)
	}
	fmt.Printf("%s: %d old, %d new, %d added, %d missing\n", *what, len(o), len(n), added, len(gone))
	if len(gone) > 0 {
		return fmt.Errorf("%d old %s missing", len(gone), *what)
	}
	if unattributed > 0 {
		return fmt.Errorf("%d added %s attributed to no issue", unattributed, *what)
	}
	return nil
}

// footer splits a help text into its body and its last paragraph (the
// lines after the last blank line), where Cobra puts a command's footer.
func footer(text string) (string, string) {
	t := strings.TrimRight(text, "\n")
	i := strings.LastIndex(t, "\n\n")
	if i < 0 {
		return t, ""
	}
	return t[:i], t[i+2:]
}
