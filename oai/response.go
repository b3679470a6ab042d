package oai

import (
	"bytes"
	"encoding/xml"
	"sort"
	"time"
)

// The OAI-PMH namespace and schema.
const (
	oaiNamespace = "http://www.openarchives.org/OAI/2.0/"
	oaiSchema    = "http://www.openarchives.org/OAI/2.0/OAI-PMH.xsd"
)

// response is an OAI-PMH document being written: its answer, or its
// error, in buf, and what comes before it.
type response struct {
	buf     bytes.Buffer
	now     time.Time
	baseURL string
	req     *request // the request, when it is to be echoed with its arguments
}

func newResponse(now time.Time, baseURL string) *response {
	return &response{now: now, baseURL: baseURL}
}

// request notes the request, to be echoed with its arguments unless it
// turns out to be a badVerb or badArgument.
func (r *response) request(req *request) { r.req = req }

// writeRequest writes the request element with the arguments of req.
func (r *response) writeRequest(req *request) {
	r.buf.WriteString(`<request verb="`)
	r.text(req.verb)
	r.buf.WriteString(`"`)
	names := make([]string, 0, len(req.args))
	for n := range req.args {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		r.buf.WriteString(" " + n + `="`)
		r.text(req.args[n])
		r.buf.WriteString(`"`)
	}
	r.buf.WriteString(">")
	r.text(r.baseURL)
	r.buf.WriteString("</request>\n")
}

// error writes an error; a badVerb or badArgument comes with the request
// element without attributes, as the protocol asks.
func (r *response) error(e *protocolError) {
	if e.code == codeBadVerb || e.code == codeBadArgument {
		r.req = nil
	}
	r.buf.Reset()
	r.buf.WriteString(`<error code="` + e.code + `">`)
	r.text(e.reason)
	r.buf.WriteString("</error>\n")
}

// element writes <name>value</name>.
func (r *response) element(name, value string) {
	r.buf.WriteString("<" + name + ">")
	r.text(value)
	r.buf.WriteString("</" + name + ">\n")
}

func (r *response) open(name string)  { r.buf.WriteString("<" + name + ">\n") }
func (r *response) close(name string) { r.buf.WriteString("</" + name + ">\n") }

// text writes s escaped.
func (r *response) text(s string) { _ = xml.EscapeText(&r.buf, []byte(s)) }

// encode writes v as XML.
func (r *response) encode(v any) error {
	enc := xml.NewEncoder(&r.buf)
	if err := enc.Encode(v); err != nil {
		return err
	}
	r.buf.WriteString("\n")
	return nil
}

// header writes a record's header.
func (r *response) header(it *item) {
	if it.deleted() {
		r.buf.WriteString(`<header status="deleted">` + "\n")
	} else {
		r.open("header")
	}
	r.element("identifier", it.key)
	r.element("datestamp", it.datestamp.Format(secondFormat))
	for _, s := range setsOf(it.key) {
		r.element("setSpec", s.spec)
	}
	r.close("header")
}

// token writes a resumptionToken: next's, value, or the empty one that
// ends a list that had one.
func (r *response) token(c, next *cursor, value string) {
	size := ""
	if c.Size >= 0 {
		size = ` completeListSize="` + itoa(c.Size) + `"`
	}
	if next == nil {
		r.buf.WriteString(`<resumptionToken` + size + ` cursor="` + itoa(c.Done) + `"/>` + "\n")
		return
	}
	r.buf.WriteString(`<resumptionToken expirationDate="` + time.Unix(next.Expires, 0).UTC().Format(secondFormat) + `"` + size + ` cursor="` + itoa(c.Done) + `">`)
	r.text(value)
	r.buf.WriteString("</resumptionToken>\n")
}

// bytes returns the whole document.
func (r *response) bytes() []byte {
	body := bytes.Clone(r.buf.Bytes())
	r.buf.Reset()
	r.buf.WriteString(xml.Header)
	r.buf.WriteString(`<OAI-PMH xmlns="` + oaiNamespace + `" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="` + oaiNamespace + " " + oaiSchema + `">` + "\n")
	r.element("responseDate", r.now.Format(secondFormat))
	if r.req != nil {
		r.writeRequest(r.req)
	} else {
		r.element("request", r.baseURL)
	}
	r.buf.Write(body)
	r.buf.WriteString("</OAI-PMH>\n")
	return r.buf.Bytes()
}
