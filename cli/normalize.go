package cli

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/caddy-ark/caddy-ark/importer"
	"github.com/caddy-ark/caddy-ark/normalize"
)

// normalizeAll writes the normal form of each identifier in args to out, one
// per line. A resolver's URL of an identifier (an Embedded ARK such as
// https://n2t.net/ark:/12345/x) stands for the identifier. With no args it reads identifiers from in instead, one per line,
// ignoring surrounding spaces, tabs and carriage returns, and skipping blank
// lines. An identifier that does not parse is reported to errOut as
// "<input>: <error>" and the others are still processed. It returns how many
// failed; err is set only when reading in fails.
func normalizeAll(args []string, in io.Reader, out, errOut io.Writer) (failed int, err error) {
	one := func(s string) {
		id, prefix := normalize.TrimResolver(s)
		n, err := normalize.Normalize(id)
		if err != nil {
			if e, ok := err.(*normalize.Error); ok && prefix != "" {
				shifted := *e
				shifted.Offset += len(prefix)
				err = &shifted
			}
			fmt.Fprintf(errOut, "%s: %v\n", terminalSafe(s), err)
			failed++
			return
		}
		fmt.Fprintln(out, n)
	}
	if len(args) > 0 {
		for _, s := range args {
			one(s)
		}
		return failed, nil
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(nil, importer.MaxLineBytes)
	for sc.Scan() {
		if s := strings.Trim(sc.Text(), " \t\r"); s != "" {
			one(s)
		}
	}
	return failed, sc.Err()
}

// terminalSafe returns s unchanged when every character in it is printable,
// and Go-quoted otherwise, so that echoing rejected input never sends
// control or bidi formatting characters to a terminal (the draft's security
// considerations ask for this). Byte offsets in errors refer to the
// unquoted input.
func terminalSafe(s string) string {
	if utf8.ValidString(s) && strings.IndexFunc(s, func(r rune) bool { return !strconv.IsPrint(r) }) < 0 {
		return s
	}
	return strconv.Quote(s)
}
