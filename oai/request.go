package oai

import (
	"net/url"
	"strings"
	"time"
)

// The protocol's error codes (OAI-PMH 2.0, 3.6).
const (
	codeBadVerb            = "badVerb"
	codeBadArgument        = "badArgument"
	codeBadResumptionToken = "badResumptionToken"
	codeCannotDisseminate  = "cannotDisseminateFormat"
	codeIDDoesNotExist     = "idDoesNotExist"
	codeNoRecordsMatch     = "noRecordsMatch"
	codeNoSetHierarchy     = "noSetHierarchy"
)

// protocolError is an OAI-PMH error: a code and a one-line reason. With
// no code, or codeBusy, it is no protocol error but a 503: the store
// unavailable, or as many lists as allowed being read.
type protocolError struct{ code, reason string }

// codeBusy is the code of the refusal of a list while as many as allowed
// are being read: no OAI-PMH code, never written in a response.
const codeBusy = "busy"

// arguments are what each verb takes: required, optional, and exclusive
// (resumptionToken, which must then be the only one).
var arguments = map[string]struct{ required, optional []string }{
	"Identify":            {},
	"ListMetadataFormats": {optional: []string{"identifier"}},
	"ListSets":            {optional: []string{"resumptionToken"}},
	"GetRecord":           {required: []string{"identifier", "metadataPrefix"}},
	"ListIdentifiers":     {required: []string{"metadataPrefix"}, optional: []string{"from", "until", "set", "resumptionToken"}},
	"ListRecords":         {required: []string{"metadataPrefix"}, optional: []string{"from", "until", "set", "resumptionToken"}},
}

// request is a checked request: its verb and its arguments, each given
// once.
type request struct {
	verb string
	args map[string]string
}

// parseRequest checks the verb and the arguments of form as the
// protocol asks: one known verb (else badVerb); each argument once, known
// to the verb, the required ones present, resumptionToken alone (else
// badArgument).
func parseRequest(form url.Values) (*request, *protocolError) {
	verbs := form["verb"]
	switch {
	case len(verbs) == 0:
		return nil, &protocolError{codeBadVerb, "the verb argument is missing"}
	case len(verbs) > 1:
		return nil, &protocolError{codeBadVerb, "the verb argument is repeated"}
	}
	verb := verbs[0]
	spec, ok := arguments[verb]
	if !ok {
		return nil, &protocolError{codeBadVerb, "unknown verb " + quote(verb) + ": the verbs are Identify, ListMetadataFormats, ListSets, ListIdentifiers, ListRecords and GetRecord"}
	}
	r := &request{verb: verb, args: map[string]string{}}
	for name, values := range form {
		if name == "verb" {
			continue
		}
		if !contains(spec.required, name) && !contains(spec.optional, name) {
			return nil, &protocolError{codeBadArgument, "the argument " + quote(name) + " is not one of " + verb + "'s"}
		}
		if len(values) > 1 {
			return nil, &protocolError{codeBadArgument, "the argument " + name + " is repeated"}
		}
		r.args[name] = values[0]
	}
	if _, ok := r.args["resumptionToken"]; ok {
		if len(r.args) > 1 {
			return nil, &protocolError{codeBadArgument, "resumptionToken is an exclusive argument: it comes with the verb only"}
		}
		return r, nil
	}
	for _, name := range spec.required {
		if _, ok := r.args[name]; !ok {
			return nil, &protocolError{codeBadArgument, verb + " requires the argument " + name}
		}
	}
	return r, nil
}

// dateFormats are the two granularities of from and until.
const (
	dayFormat    = "2006-01-02"
	secondFormat = "2006-01-02T15:04:05Z"
)

// window is the datestamps a list selects, both ends included, to the
// second; until is always set.
type window struct {
	from, until time.Time
	hasFrom     bool
}

// parseWindow reads from and until, against now: the list holds what
// changed before now's second began.
func parseWindow(args map[string]string, now time.Time) (window, *protocolError) {
	w := window{until: now.UTC().Truncate(time.Second).Add(-time.Second)}
	from, hasFrom := args["from"]
	until, hasUntil := args["until"]
	var fromDay, untilDay bool
	if hasFrom {
		t, day, err := parseDate(from)
		if err != nil {
			return w, &protocolError{codeBadArgument, "from " + quote(from) + " is not a date YYYY-MM-DD or YYYY-MM-DDThh:mm:ssZ"}
		}
		w.from, w.hasFrom, fromDay = t, true, day
	}
	if hasUntil {
		t, day, err := parseDate(until)
		if err != nil {
			return w, &protocolError{codeBadArgument, "until " + quote(until) + " is not a date YYYY-MM-DD or YYYY-MM-DDThh:mm:ssZ"}
		}
		untilDay = day
		if day {
			t = t.Add(24*time.Hour - time.Second)
		}
		if hasFrom && fromDay != untilDay {
			return w, &protocolError{codeBadArgument, "from and until have different granularities"}
		}
		if hasFrom && t.Before(w.from) {
			return w, &protocolError{codeBadArgument, "until is before from"}
		}
		if t.Before(w.until) {
			w.until = t
		}
	}
	return w, nil
}

// parseDate reads a UTCdatetime of either granularity, reporting which.
func parseDate(s string) (t time.Time, day bool, err error) {
	if len(s) == len(dayFormat) {
		t, err = time.Parse(dayFormat, s)
		return t, true, err
	}
	t, err = time.Parse(secondFormat, s)
	return t, false, err
}

// contains reports whether list holds s.
func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// quote quotes s for a reason, shortened when long.
func quote(s string) string {
	if len(s) > 100 {
		s = s[:100] + "…"
	}
	return `"` + strings.ToValidUTF8(s, "?") + `"`
}
