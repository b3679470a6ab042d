package main

import (
	"fmt"
	"strings"
)

// suffixes are the query parts each spelling is requested with: none,
// the inflections, and a query the resolver does not know.
var suffixes = []string{"", "?", "??", "?info", "?info=json", "?info=html", "?format=json", "?foo=bar"}

// accepts are Accept values sent with an identifier's normal spelling.
var accepts = []string{"text/html", "application/json", "application/ld+json", "text/turtle", "application/linkset+json", "application/linkset", "text/plain", "*/*;q=0.1, application/xml"}

// methods are the methods besides GET and HEAD sent to an identifier.
var methods = []string{"POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE"}

// generated returns the generated requests on ids: each identifier in
// equivalent (and near) spellings, each with every suffix, GET and HEAD;
// the normal spelling with other methods and Accept values; unknown
// identifiers, bad and overlong input, well-known and site paths.
func generated(ids []string) []request {
	var out []request
	add := func(origin, method, target string, header ...string) {
		out = append(out, request{Origin: origin, Method: method, Target: target, Header: header})
	}
	for _, id := range ids {
		for _, sp := range spellings(id) {
			for _, s := range suffixes {
				add("generated "+id, "GET", "/"+sp+s)
			}
			add("generated "+id, "HEAD", "/"+sp)
			add("generated "+id, "HEAD", "/"+sp+"?info")
		}
		for _, m := range methods {
			add("generated "+id, m, "/"+id)
		}
		for _, a := range accepts {
			add("generated "+id, "GET", "/"+id, "Accept: "+a)
			add("generated "+id, "GET", "/"+id+"?info", "Accept: "+a)
			add("generated "+id, "HEAD", "/"+id, "Accept: "+a)
		}
	}
	other := []string{
		"/", "/index.html", "/objects/x5wf6789.html", "/collections/b2c4d6/", "/collections/b2c4d6/moths.html", "/theses/2024.pdf", "/nothing-here",
		"/.well-known/ark", "/.well-known/ark/", "/.well-known/ark?info", "/.well-known/other", "/healthz/ark", "/healthz/ark?x",
		"/ark:", "/ark:/", "/ark:12345", "/ark:/12345", "/ark:12345/", "/ark:/12345/", "/ark:12345?info", "/ark:12345/?info", "/ark:12345/t3", "/ark:12345/t3?info",
		"/ark:12345/t3abc", "/ark:/12345/t3-abc/x.y", "/ark:12345/t3abc?info", "/ark:12345/nope", "/ark:12345/nope?info", "/ark:12345/nope??",
		"/ark:99999/x", "/ark:99999/x?info", "/ark:/99999/x/y.z", "/ark:ABCDE/x", "/ark:1234/x", "/ark:12345/%zz", "/ark:12345/%00x", "/ark:12345/a%2Fb",
		"/ark:12345/x5wf6789%3Finfo", "/ark:12345/x5wf6789#frag", "/ark:12345/x5wf6789/../f3p0q7", "/ark:12345/./x5wf6789", "/ark:12345//x5wf6789",
		"/ark:12345/" + strings.Repeat("a", 2000), "/ark:12345/" + strings.Repeat("a", 9000), "/ark:12345/" + strings.Repeat("a", 9000) + "?info",
		"/urn:", "/urn:nbn", "/urn:nbn:de:nope", "/urn:nbn:de:nope?info", "/urn:isbn:0451450523", "/URN:ietf:rfc:2648", "/urn:%zz",
		"/arks.json", "/Caddyfile",
	}
	for _, t := range other {
		add("generated", "GET", t)
		add("generated", "HEAD", t)
	}
	for _, m := range methods {
		add("generated", m, "/.well-known/ark")
		add("generated", m, "/healthz/ark")
	}
	add("generated", "GET", "*")
	add("generated", "OPTIONS", "*")
	add("generated", "GET", "http://localhost:8080/ark:12345/x5wf6789")
	return out
}

// spellings returns id in the spellings a reader may type: with and
// without the slash after "ark:", the scheme's case, hyphens, the
// label's case, %-encodings, trailing / and ., a qualifier. For a URN:
// the case of the scheme and namespace, %-encodings, r-/q-components.
func spellings(id string) []string {
	lower := strings.ToLower(id)
	if strings.HasPrefix(lower, "urn:") {
		rest := id[4:]
		nid, nss, _ := strings.Cut(rest, ":")
		return []string{
			id, "URN:" + rest, "urn:" + strings.ToUpper(nid) + ":" + nss, "urn:" + nid + ":" + strings.ToUpper(nss),
			"urn%3A" + rest, "urn:" + nid + "%3A" + nss, id + "?+", id + "?=x", id + "/", id + ".",
		}
	}
	body := id[len("ark:"):]
	body = strings.TrimPrefix(body, "/")
	naan, label, _ := strings.Cut(body, "/")
	hy := label
	if len(label) > 4 {
		hy = label[:2] + "-" + label[2:4] + "-" + label[4:]
	}
	enc := label
	if label != "" {
		enc = fmt.Sprintf("%%%02X", label[0]) + label[1:]
	}
	return []string{
		"ark:" + naan + "/" + label,
		"ark:/" + naan + "/" + label,
		"ARK:" + naan + "/" + label,
		"Ark:/" + naan + "/" + label,
		"ark:" + naan + "/" + hy,
		"ark:" + naan + "/" + strings.ToUpper(label),
		"ark:" + naan + "/" + enc,
		"ark%3A" + naan + "/" + label,
		"ark:" + naan + "%2F" + label,
		"ark:" + naan + "/" + label + "/",
		"ark:" + naan + "/" + label + ".",
		"ark:" + naan + "/" + label + "-",
		"ark:" + naan + "/" + label + "/c2",
		"ark:" + naan + "/" + label + ".pdf",
		"ark:" + naan + "/" + label + "/a/b.c",
		id,
	}
}
