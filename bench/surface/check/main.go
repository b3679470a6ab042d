// Command check holds the steps of bench/surface.sh, which compares the
// public surface of two commits of caddy-ark (module IDs, commands and
// flags, Caddyfile adaptation, JSON config fields, HTTP answers):
//
//	check caddyfiles -repo DIR -out DIR           write every Caddyfile of DIR's checkout, with an index
//	check adapt -old BIN -new BIN -index F -dir D  adapt each with both binaries, compare
//	check help -bin BIN -out DIR                  write `caddy … --help` of every command
//	check helpcmp -old DIR -new DIR -additions F  compare commands and flags
//	check setcmp -old F -new F -what W -additions F  old lines ⊆ new lines, additions attributed
//	check corpus -repo DIR | -api                 print a request corpus
//	check replay -addr A -corpus F -out F [-mask-times]  send the corpus, record the raw answers
//	check compare -old F -new F [-allow H,…] [-extend-links] [-negotiation] [-explained F]
//	                                              compare two recordings
//
// Each prints what it found and exits 1 on an unexplained difference.
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: check caddyfiles|adapt|help|helpcmp|setcmp|corpus|replay|compare [flags]")
		os.Exit(2)
	}
	steps := map[string]func([]string) error{
		"caddyfiles": caddyfilesCmd,
		"adapt":      adaptCmd,
		"help":       helpCmd,
		"helpcmp":    helpcmpCmd,
		"setcmp":     setcmpCmd,
		"corpus":     corpusCmd,
		"replay":     replayCmd,
		"compare":    compareCmd,
	}
	step, ok := steps[os.Args[1]]
	if !ok {
		fmt.Fprintf(os.Stderr, "check: unknown step %q\n", os.Args[1])
		os.Exit(2)
	}
	if err := step(os.Args[2:]); err != nil {
		fmt.Fprintln(os.Stderr, "check "+os.Args[1]+":", err)
		os.Exit(1)
	}
}
