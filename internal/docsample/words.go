// Package docsample reads the samples of README.md and docs/: their
// command lines, split into words as a POSIX shell would, and their
// Caddyfile snippets. Both the replays of the samples (e2e/docs) and the
// public-surface check (bench/surface) read samples with it.
package docsample

import (
	"fmt"
	"strings"
)

// Words splits the command line cmd into words, for the quoting the
// samples use: '…' and "…" without expansions. It refuses what it cannot split as written:
// an unclosed quote, an expansion or escape inside "…", and pipes,
// redirections, variables, substitutions, globs and comments outside
// quotes.
func Words(cmd string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		switch {
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\'' || c == '"':
			j := strings.IndexByte(cmd[i+1:], c)
			if j < 0 {
				return nil, fmt.Errorf("unclosed %c quote", c)
			}
			s := cmd[i+1 : i+1+j]
			if c == '"' && strings.ContainsAny(s, "$`\\") {
				return nil, fmt.Errorf("an expansion or escape in %q", s)
			}
			cur.WriteString(s)
			i += j + 1
			inWord = true
		case strings.IndexByte("|&;<>()$`\\*?[#~", c) >= 0:
			return nil, fmt.Errorf("%q in the command line", c)
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}
