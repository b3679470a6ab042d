package api

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"github.com/caddy-ark/caddy-ark/store"
	"github.com/caddy-ark/caddy-ark/table"
)

// bulkLine is one line of a bulk request: a binding, or a withdrawal.
type bulkLine struct {
	Op string `json:"op"` // "bind" or "withdraw"
	ID string `json:"id"`
	BindRequest
	Reason string `json:"reason,omitempty"`
}

// BulkResult is the line that answers one bulk line.
type BulkResult struct {
	Line    int    `json:"line"`
	ID      string `json:"id,omitempty"`
	Status  int    `json:"status"`
	Version uint64 `json:"version,omitempty"`
	Error   string `json:"error,omitempty"`
}

// MaxBulkLine bounds one line of a bulk request.
const MaxBulkLine = MaxBindBody + table.MaxIDBytes + 1024

// bulk answers POST bulk: NDJSON in, one result line out for each line in
// (blank lines skipped), numbered as the input's lines are, as soon as its
// change is durable. A line that fails changes nothing and
// the next is still applied.
func (c *apiCall) bulk() error {
	limit := c.a.maxBody()
	if c.r.ContentLength > limit {
		return writeAPIError(c.w, http.StatusRequestEntityTooLarge, "the body is larger than the API's max_body, "+formatBytes(limit))
	}
	// Answer each line while the body is still coming in (HTTP/1.1 needs
	// this asked for; HTTP/2 always does so).
	rc := http.NewResponseController(c.w)
	_ = rc.EnableFullDuplex()
	c.w.Header().Set("Content-Type", "application/x-ndjson")
	c.w.Header().Set("X-Content-Type-Options", "nosniff")
	c.w.WriteHeader(http.StatusOK)
	enc := json.NewEncoder(c.w)
	enc.SetEscapeHTML(false)
	in := bufio.NewReaderSize(http.MaxBytesReader(c.w, c.r.Body, limit), 64<<10)
	for n := 1; ; n++ {
		line, err := readLine(in, MaxBulkLine)
		var tooLarge *http.MaxBytesError
		switch {
		case errors.As(err, &tooLarge):
			return enc.Encode(BulkResult{Line: n, Status: http.StatusRequestEntityTooLarge,
				Error: "the body is larger than the API's max_body, " + formatBytes(limit) + ": this line and the rest were not read"})
		case errors.Is(err, errLineTooLong):
			err = enc.Encode(BulkResult{Line: n, Status: http.StatusRequestEntityTooLarge, Error: err.Error()})
		case err == io.EOF && len(line) == 0:
			return nil
		case err != nil && err != io.EOF:
			return err
		case len(bytes.TrimSpace(line)) == 0:
			continue // a blank line asks for nothing; the next keeps its own number
		default:
			err = enc.Encode(c.bulkLine(n, line))
		}
		if err != nil {
			return err
		}
		_ = rc.Flush()
	}
}

// bulkLine applies one line and returns its result.
func (c *apiCall) bulkLine(n int, line []byte) BulkResult {
	var l bulkLine
	if err := decodeOne(line, &l); err != nil {
		return BulkResult{Line: n, Status: http.StatusBadRequest, Error: "not a JSON object of op, id and its fields: " + err.Error()}
	}
	key, err := c.managedKey(l.ID, true)
	if err != nil {
		return bulkFailure(n, l.ID, err)
	}
	var wr *store.Write
	switch l.Op {
	case "bind":
		var b *store.Binding
		if b, err = c.a.checkBinding(key, &l.BindRequest); err == nil {
			wr = &store.Write{Binding: *b, By: c.key.name}
		}
	case "withdraw":
		wr, err = c.tombstone(c.r.Context(), key, l.Reason)
	default:
		err = refuse(http.StatusBadRequest, "op %q: bind or withdraw", l.Op)
	}
	if err != nil {
		return bulkFailure(n, key, err)
	}
	stored, err := c.store.Apply(c.r.Context(), *wr)
	if err != nil {
		return bulkFailure(n, key, storeError(key, err))
	}
	countWrites(wr.By, 1)
	status := http.StatusOK
	if stored.Version == 1 {
		status = http.StatusCreated
	}
	return BulkResult{Line: n, ID: key, Status: status, Version: stored.Version}
}

func bulkFailure(n int, id string, err error) BulkResult {
	var ae *apiError
	if !errors.As(err, &ae) {
		ae = storeError(id, err)
	}
	return BulkResult{Line: n, ID: id, Status: ae.status, Error: ae.msg}
}

// errLineTooLong is a bulk line longer than maxBulkLine; it is skipped.
var errLineTooLong = errors.New("the line is longer than " + formatBytes(MaxBulkLine) + " and was skipped")

// readLine reads one line of at most limit bytes, without its newline. A
// longer line is read to its end and dropped, with errLineTooLong.
func readLine(in *bufio.Reader, limit int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := in.ReadSlice('\n')
		if len(line)+len(chunk) <= limit+1 {
			line = append(line, chunk...)
		} else {
			line = line[:0:0]
			limit = -2 // too long: read on to the newline
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case limit < 0 && (err == nil || err == io.EOF):
			return nil, errLineTooLong
		}
		return bytes.TrimSuffix(line, []byte("\n")), err
	}
}
