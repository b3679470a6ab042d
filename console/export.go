package console

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/caddy-ark/caddy-ark/api"
	"github.com/caddy-ark/caddy-ark/importer"
	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/table"
	"go.uber.org/zap"
)

// csvColumns are the columns of a CSV export: those the CSV importer
// reads back, the metadata elements of the ERC kernel among them. The
// table file keeps every metadata element and passthrough.
var csvColumns = []string{"id", "target", "status", "who", "what", "when", "where", "persistence", "allocated", table.ReasonMeta}

// exportWriter writes the entries of an export in one format.
type exportWriter interface {
	start() error
	entry(e table.Entry) error
	end() error
}

// export answers the download of a search: every identifier it finds,
// not a page, as CSV or as a table file, read from the API a page at a
// time and written as it is read. Names minted and not bound yet are
// left out, as the API's export leaves them out: an entry needs a target.
func (p *page) export() error {
	qv := p.r.URL.Query()
	q := searchOf(qv)
	out := bufio.NewWriterSize(&api.HeaderOnWrite{W: p.w}, 64<<10)
	var ew exportWriter
	switch qv.Get("format") {
	case "csv":
		p.w.Header().Set("Content-Type", "text/csv; charset=utf-8")
		p.w.Header().Set("Content-Disposition", `attachment; filename="ark-search.csv"`)
		ew = &csvExport{w: csv.NewWriter(out)}
	case "json":
		p.w.Header().Set("Content-Type", "application/json")
		p.w.Header().Set("Content-Disposition", `attachment; filename="ark-search.json"`)
		ew = &tableExport{w: out}
	default:
		return p.problem(http.StatusBadRequest, "Choose the format of the export: csv or json.")
	}
	started := false
	for after := ""; ; {
		pg, err := p.ids(q, after, api.MaxPageSize)
		if err != nil && !started {
			p.w.Header().Del("Content-Disposition")
			return p.fail(err)
		}
		if err != nil {
			// The answer has begun: cut it, so that the download fails
			// rather than look complete.
			p.site.Logger().Error("console export cut short", zap.Error(err))
			panic(http.ErrAbortHandler)
		}
		if !started {
			if err := ew.start(); err != nil {
				return err
			}
			started = true
		}
		for _, b := range pg.Bindings {
			if b.State() == store.StateMinted {
				continue
			}
			if err := ew.entry(importer.EntryOf(b)); err != nil {
				return err
			}
		}
		if pg.Next == "" {
			break
		}
		after = pg.Next
	}
	if err := ew.end(); err != nil {
		return err
	}
	return out.Flush()
}

// csvExport writes entries as CSV rows of csvColumns.
type csvExport struct{ w *csv.Writer }

func (x *csvExport) start() error { return x.w.Write(csvColumns) }

func (x *csvExport) entry(e table.Entry) error {
	row := []string{e.ID, e.Target, strconv.Itoa(e.Status)}
	for _, name := range csvColumns[3:] {
		row = append(row, e.Meta[name])
	}
	return x.w.Write(row)
}

func (x *csvExport) end() error {
	x.w.Flush()
	return x.w.Error()
}

// tableExport writes entries as a table file, as the API's export does.
type tableExport struct {
	w *bufio.Writer
	n int
}

func (x *tableExport) start() error {
	_, err := x.w.WriteString("{\"entries\": [")
	return err
}

func (x *tableExport) entry(e table.Entry) error {
	data, err := json.Marshal(e)
	if err != nil {
		return err
	}
	sep := ",\n"
	if x.n == 0 {
		sep = "\n"
	}
	x.n++
	x.w.WriteString(sep)
	_, err = x.w.Write(data)
	return err
}

func (x *tableExport) end() error {
	_, err := x.w.WriteString("\n]}\n")
	return err
}
