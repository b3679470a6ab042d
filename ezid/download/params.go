package download

import (
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Request is a download request, as its parameters say (the API
// document's "Batch download", Parameters).
type Request struct {
	Format      string   // FormatANVL, FormatCSV or FormatXML
	Compression string   // CompressionGzip or CompressionZip
	Columns     []string // the CSV format's, in order
	Notify      []string // addresses to tell when the download is ready
	// ConvertTimestamps writes _created and _updated as ISO 8601
	// (2024-05-01T10:20:30Z) instead of seconds since 1970.
	ConvertTimestamps bool
	// Owners and OwnerGroups are the users and groups whose identifiers
	// are asked for; none means the requestor's own.
	Owners, OwnerGroups []string
	Select              Selection
}

// BadRequest is a request refused, with EZID's reason: it is answered
// "error: bad request - <Reason>" with the status 400.
type BadRequest struct{ Reason string }

func (e *BadRequest) Error() string { return "bad request - " + e.Reason }

// parameter is how one parameter is read: whether it may be repeated, and
// its check, which returns the reason for a bad value.
type parameter struct {
	repeatable bool
	check      func(string) string
}

// parameters are the parameters of a download request, as EZID's server
// reads them (CDLUC3/ezid, impl/download.py).
var parameters = map[string]parameter{
	"column":            {true, nonEmpty},
	"convertTimestamps": {false, oneOf("yes", "no")},
	"createdAfter":      {false, timestamp},
	"createdBefore":     {false, timestamp},
	"crossref":          {false, oneOf("yes", "no")},
	"datacite":          {false, oneOf("yes", "no")},
	"exported":          {false, oneOf("yes", "no")},
	"format":            {false, oneOf(FormatANVL, FormatCSV, FormatXML)},
	"compression":       {false, oneOf(CompressionGzip, CompressionZip)},
	"notify":            {true, nonEmpty},
	"owner":             {true, nonEmpty},
	"ownergroup":        {true, nonEmpty},
	"permanence":        {false, oneOf("test", "real")},
	"profile":           {true, nonEmpty},
	"status":            {true, oneOf("reserved", "public", "unavailable")},
	"type":              {true, oneOf("ark", "doi", "uuid", "urn")},
	"updatedAfter":      {false, timestamp},
	"updatedBefore":     {false, timestamp},
}

func nonEmpty(v string) string {
	if strings.TrimSpace(v) == "" {
		return "empty value"
	}
	return ""
}

func oneOf(values ...string) func(string) string {
	return func(v string) string {
		if !slices.Contains(values, v) {
			return "invalid parameter value"
		}
		return ""
	}
}

func timestamp(v string) string {
	if _, ok := parseTime(v); !ok {
		return "invalid timestamp"
	}
	return ""
}

// parseTime reads a time of a request or of a record's _created or
// _updated: seconds since 1970, or ISO 8601 in UTC as EZID writes it
// (2024-05-01T10:20:30Z; any RFC 3339 date-time, and a date alone, are
// read too).
func parseTime(v string) (int64, bool) {
	v = strings.TrimSpace(v)
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		return n, true
	}
	for _, layout := range []string{time.RFC3339Nano, time.DateOnly} {
		if t, err := time.Parse(layout, v); err == nil {
			return t.Unix(), true
		}
	}
	return 0, false
}

// ParseRequest reads the parameters of a download request (the form of
// its POST body), refusing it with EZID's words (a *BadRequest): an
// unknown parameter, a repeated one that is not repeatable, a bad value,
// no format, the CSV format without a column, a column with another
// format. Whether the owners and groups exist, and whether the requestor
// may download theirs, is the caller's to check.
func ParseRequest(form url.Values) (*Request, error) {
	names := make([]string, 0, len(form))
	for k := range form {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		p, ok := parameters[k]
		if !ok {
			return nil, &BadRequest{"invalid parameter: " + oneLine(k)}
		}
		if !p.repeatable && len(form[k]) > 1 {
			return nil, &BadRequest{"parameter is not repeatable: " + k}
		}
		for _, v := range form[k] {
			if why := p.check(v); why != "" {
				return nil, &BadRequest{"parameter '" + k + "': " + why}
			}
		}
	}
	rq := &Request{Format: form.Get("format"), Compression: form.Get("compression"),
		ConvertTimestamps: form.Get("convertTimestamps") == "yes"}
	if rq.Format == "" {
		return nil, &BadRequest{"missing required parameter: format"}
	}
	if rq.Compression == "" {
		rq.Compression = CompressionGzip
	}
	trimmed := func(k string) []string {
		var vs []string
		for _, v := range form[k] {
			vs = append(vs, strings.TrimSpace(v))
		}
		return vs
	}
	rq.Columns = trimmed("column")
	switch {
	case rq.Format == FormatCSV && len(rq.Columns) == 0:
		return nil, &BadRequest{"format 'csv' requires at least one column"}
	case rq.Format != FormatCSV && len(rq.Columns) > 0:
		return nil, &BadRequest{"parameter is incompatible with format: column"}
	}
	rq.Notify, rq.Owners, rq.OwnerGroups = trimmed("notify"), trimmed("owner"), trimmed("ownergroup")
	rq.Select = selection(form)
	return rq, nil
}
