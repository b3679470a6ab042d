package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
)

// logTime matches the times in Caddy's log lines, which follow the clock.
var logTime = regexp.MustCompile(`(?m)^\d{4}/\d\d/\d\d \d\d:\d\d:\d\d\.\d+ |"ts":[0-9.e+]+`)

// adaptResult is what `caddy adapt` did with one Caddyfile.
type adaptResult struct {
	ok     bool
	stdout string
	stderr string // with log times masked
}

// adapt runs bin's `caddy adapt` on file, in dir.
func adapt(bin, dir, file string) adaptResult {
	cmd := exec.Command(bin, "adapt", "--adapter", "caddyfile", "--config", file)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return adaptResult{ok: err == nil, stdout: stdout.String(), stderr: logTime.ReplaceAllString(stderr.String(), "<time>")}
}

// adaptCmd adapts every Caddyfile of -index with -old and -new (in -dir)
// and requires the same JSON, the same warnings, or the same error.
func adaptCmd(args []string) error {
	fl := flag.NewFlagSet("adapt", flag.ExitOnError)
	oldBin := fl.String("old", "", "the old caddy")
	newBin := fl.String("new", "", "the new caddy")
	index := fl.String("index", "", "the index caddyfiles wrote")
	dir := fl.String("dir", "", "the directory to adapt in")
	_ = fl.Parse(args)
	f, err := os.Open(*index)
	if err != nil {
		return err
	}
	defer f.Close()
	var same, sameErr, differ int
	var errKinds []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		file, origin, _ := strings.Cut(sc.Text(), "\t")
		o, n := adapt(*oldBin, *dir, file), adapt(*newBin, *dir, file)
		switch {
		case o != n:
			differ++
			fmt.Printf("  DIFFERENT adaptation: %s (%s)\n    old ok=%v: %s%s\n    new ok=%v: %s%s\n", origin, file, o.ok, firstLines(o.stdout), firstLines(o.stderr), n.ok, firstLines(n.stdout), firstLines(n.stderr))
		case o.ok:
			same++
		default:
			sameErr++
			errKinds = append(errKinds, origin+": "+lastLine(o.stderr))
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	fmt.Printf("Caddyfiles adapted: %d; identical JSON (and warnings): %d; refused by both with the same error: %d; different: %d\n", same+sameErr+differ, same, sameErr, differ)
	for _, e := range errKinds {
		fmt.Println("  refused by both:", e)
	}
	if differ > 0 {
		return fmt.Errorf("%d Caddyfiles adapt differently", differ)
	}
	return nil
}

// firstLines returns the first lines of s, for a report.
func firstLines(s string) string {
	lines := strings.SplitAfter(s, "\n")
	if len(lines) > 6 {
		lines = append(lines[:6], "…\n")
	}
	return strings.Join(lines, "")
}

// lastLine returns the last line of s that is not blank.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
