package ezid

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/caddy-ark/caddy-ark/metadata"
)

// dataciteNamespace starts the namespace of every version of DataCite's
// metadata kernel, the namespace of a record's root element <resource>.
const dataciteNamespace = "http://datacite.org/schema/kernel-"

// embedIdentifier returns record, the whole-record "datacite" element
// given to key by a client, with key in its <identifier>, as EZID's
// server writes it (impl/datacite.py, validateDcmsRecord): the text of
// the one <identifier> child of <resource> becomes key without its scheme
// ("12345/x5wf" for ark:12345/x5wf), the rest of the record unchanged. A
// record that is not well-formed XML, not a DataCite record, without that
// <identifier> or with an identifierType other than key's is refused, in
// EZID's words, as an *ElementError.
func embedIdentifier(record, key string) (string, error) {
	typ, text := "ARK", strings.TrimPrefix(Spell(key), "ark:/")
	if !strings.HasPrefix(key, "ark:") {
		typ, text = "URN", key
	}
	start, end, got, err := identifierSpan(record)
	if err != nil {
		return "", &ElementError{metadata.KeyDataCiteXML, "metadata validation error: " + oneLine(err.Error())}
	}
	if got != typ {
		return "", &ElementError{metadata.KeyDataCiteXML, "metadata validation error: Mismatch between identifier type and <identifier> element"}
	}
	var escaped bytes.Buffer
	_ = xml.EscapeText(&escaped, []byte(text))
	return record[:start] + escaped.String() + record[end:], nil
}

// identifierSpan reads record and returns where the content of the one
// <identifier> child of its root <resource> starts and ends, and its
// identifierType. As EZID's server, it reads the whole record before it
// looks at its elements: an XML parse error comes first.
func identifierSpan(record string) (start, end int, typ string, err error) {
	d := xml.NewDecoder(strings.NewReader(record))
	depth, found := 0, 0
	inIdentifier := false
	var shape error
	malformed := func(e error) {
		if shape == nil {
			shape = e
		}
	}
	for {
		before := int(d.InputOffset())
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, 0, "", fmt.Errorf("XML parse error: %v", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			switch {
			case depth == 1 && (t.Name.Local != "resource" || !strings.HasPrefix(t.Name.Space, dataciteNamespace)):
				malformed(errors.New("Not a DataCite record"))
			case depth == 2 && t.Name.Local == "identifier":
				found++
				inIdentifier = true
				start, end = int(d.InputOffset()), int(d.InputOffset())
				typ = ""
				for _, a := range t.Attr {
					if a.Name.Local == "identifierType" && a.Name.Space == "" {
						typ = a.Value
					}
				}
				if typ == "" {
					malformed(errors.New("Malformed DataCite record: no <identifier> element"))
				}
			case inIdentifier:
				malformed(errors.New("Malformed DataCite record: <identifier> holds an element"))
			}
		case xml.EndElement:
			if inIdentifier && depth == 2 {
				end = before
				inIdentifier = false
			}
			depth--
		}
	}
	if found != 1 {
		malformed(errors.New("Malformed DataCite record: no <identifier> element"))
	}
	if shape != nil {
		return 0, 0, "", shape
	}
	return start, end, typ, nil
}
