package table

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// Export writes the compiled table at path to w as a JSON table,
// one entry a line, in the order the entries were compiled. Compiling
// what it writes gives the same
func Export(path string, w io.Writer) error {
	t, err := OpenCompiled(path, true)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	var line bytes.Buffer
	enc := json.NewEncoder(&line)
	enc.SetEscapeHTML(false)
	bw.WriteString(`{"entries": [`)
	first := true
	off := false
	werr := t.Walk(func(key string, a *Assignment) bool {
		e := exportedEntry{ID: key, Target: a.Target, Status: a.Status}
		if !a.Passthrough {
			e.Passthrough = &off
		}
		if a.Meta != nil {
			e.Meta = &a.Meta
		}
		line.Reset()
		if err = enc.Encode(&e); err != nil {
			return false
		}
		if !first {
			bw.WriteByte(',')
		}
		first = false
		bw.WriteByte('\n')
		bw.Write(bytes.TrimSuffix(line.Bytes(), []byte("\n")))
		return true
	})
	if werr != nil {
		return fmt.Errorf("%s: %w", path, werr)
	}
	if err != nil {
		return err
	}
	bw.WriteString("\n]}\n")
	return bw.Flush()
}

// exportedEntry is an entry as export writes it: every field that the
// assignment holds, the status always, passthrough only when false, and
// metadata whenever there is some, even empty.
type exportedEntry struct {
	ID          string             `json:"id"`
	Target      string             `json:"target,omitempty"`
	Status      int                `json:"status"`
	Passthrough *bool              `json:"passthrough,omitempty"`
	Meta        *map[string]string `json:"meta,omitempty"`
}
