package api

import (
	"mime"
	"net/http"
	"strings"
)

// formType is the media type curl sends with a bare -d (and -d @file):
// the API reads such a body as JSON, as it reads one without a type.
const formType = "application/x-www-form-urlencoded"

// checkBodyType refuses, 415, a JSON body whose Content-Type, value, is
// not one the API reads as JSON: none, application/json, formType, or one
// of also (PATCH's merge patch). Every JSON body is checked here, so PUT,
// PATCH and POST take the same types.
func checkBodyType(value string, also ...string) error {
	if value == "" {
		return nil
	}
	accepted := append(append([]string{}, also...), "application/json", formType)
	mt, _, err := mime.ParseMediaType(value)
	if err == nil {
		for _, t := range accepted {
			if mt == t {
				return nil
			}
		}
	}
	return refuse(http.StatusUnsupportedMediaType, "Content-Type %q: the body is read as JSON with Content-Type %s, or none", value, strings.Join(accepted, ", "))
}
