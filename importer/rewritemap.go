package importer

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// readRewriteMap reads an Apache RewriteMap text file ("txt:" map): one
// "key value" pair per line, separated by spaces or tabs; blank lines and
// lines starting with "#" are comments, and so is anything from a "#"
// that starts a field.
func readRewriteMap(r io.Reader, row func(sourceRow)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, MaxLineBytes)
	for line := 1; sc.Scan(); line++ {
		fields := strings.Fields(sc.Text())
		for i, f := range fields {
			if strings.HasPrefix(f, "#") {
				fields = fields[:i]
				break
			}
		}
		switch len(fields) {
		case 0:
		case 2:
			row(sourceRow{line: line, id: fields[0], target: fields[1]})
		default:
			row(sourceRow{line: line, err: fmt.Errorf("%s: expected \"key value\" (a RewriteMap line)", count(len(fields), "field"))})
		}
	}
	return sc.Err()
}
