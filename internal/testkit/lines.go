package testkit

import "strings"

// Lines returns the lines of a body (an ANVL answer, a command's output).
func Lines(body string) []string { return strings.Split(strings.TrimSuffix(body, "\n"), "\n") }
