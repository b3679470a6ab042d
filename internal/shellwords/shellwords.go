// Package shellwords splits the command lines that the docs' samples show
// into words, as a POSIX shell would, for the quoting they use: '…' and
// "…" without expansions. Both the replays of the docs' samples and the
// public-surface check read samples with it.
package shellwords

import (
	"fmt"
	"strings"
)

// Split splits cmd into words. It refuses what it cannot split as written:
// an unclosed quote, an expansion or escape inside "…", and pipes,
// redirections, variables, substitutions, globs and comments outside
// quotes.
func Split(cmd string) ([]string, error) {
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
