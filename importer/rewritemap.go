package importer

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
)

// readRewriteMap reads an Apache RewriteMap text file ("txt:" map): one
// "key value" pair per line, separated by spaces or tabs; blank lines and
// lines starting with "#" are comments, and so is anything from a "#"
// that starts a field. A line ending in ";" is refused: it is an nginx
// map line (see readNginxMaps).
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
		switch {
		case len(fields) > 0 && strings.HasSuffix(fields[len(fields)-1], ";"):
			// A RewriteMap value ending in ";" is unheard of; an nginx
			// map line always ends so, and its target is not the ";".
			row(sourceRow{line: line, err: errors.New(`the line ends with ";", as an nginx map line does, not a RewriteMap one: read the file with --format nginx`)})
		case len(fields) == 0:
		case len(fields) == 2:
			row(sourceRow{line: line, id: fields[0], target: fields[1]})
		default:
			row(sourceRow{line: line, err: fmt.Errorf("%s: expected \"key value\" (a RewriteMap line)", count(len(fields), "field"))})
		}
	}
	return sc.Err()
}
