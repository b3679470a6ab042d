package download

import (
	"io"

	"github.com/caddy-ark/caddy-ark/ezid/anvl"
)

// The download formats, as the request's "format" parameter names them.
const (
	FormatANVL = "anvl"
	FormatCSV  = "csv"
	FormatXML  = "xml"
)

// fileSuffixes are the extensions of the formats' files, as EZID names
// them.
var fileSuffixes = map[string]string{FormatANVL: "txt", FormatCSV: "csv", FormatXML: "xml"}

// RecordWriter writes the records of a download in one format.
type RecordWriter interface {
	// Write writes one record.
	Write(r *anvl.Record) error
	// Close writes what ends the format and flushes; it does not close
	// the underlying writer.
	Close() error
}

// NewRecordWriter returns a writer of format (FormatANVL, FormatCSV or
// FormatXML) to w. columns are the CSV format's columns, in order: an
// element's name, or one of the columns EZID computes (_id, and
// _mappedCreator, _mappedTitle, _mappedPublisher, _mappedDate and
// _mappedType, from the record's preferred profile); the other formats
// take none.
func NewRecordWriter(format string, w io.Writer, columns []string) (RecordWriter, error) {
	switch format {
	case FormatCSV:
		return newCSVWriter(w, columns)
	case FormatXML:
		return newXMLWriter(w)
	}
	return newANVLWriter(w), nil
}
