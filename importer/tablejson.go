package importer

import (
	"io"
	"strconv"

	"github.com/caddy-ark/caddy-ark/table"
)

// readTableJSON reads a JSON table file ({"entries": [...]}): the project's
// own tables, `caddy ark export` of a compiled table and the API's GET
// export. Every field of an entry is kept as it is written, passthrough
// and empty metadata included, so that the table it makes compiles and
// exports byte for byte as its source does. A line that is not the table
// format stops the reading there: the rest cannot be told apart.
func readTableJSON(r io.Reader, row func(sourceRow)) error {
	tr := table.NewReader(r)
	_, err := tr.Each(func(e *table.Entry) error {
		status := ""
		if e.Status != 0 {
			status = strconv.Itoa(e.Status)
		}
		row(sourceRow{line: tr.Line, id: e.ID, target: e.Target, status: status, passthrough: e.Passthrough, meta: e.Meta})
		return nil
	})
	if err != nil {
		row(sourceRow{line: tr.Line, err: err})
	}
	return nil
}
