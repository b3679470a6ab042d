package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// readAnswers reads the JSON lines replay wrote.
func readAnswers(path string) ([]answer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []answer
	dec := json.NewDecoder(bufio.NewReader(f))
	for {
		var a answer
		if err := dec.Decode(&a); err == io.EOF {
			return out, nil
		} else if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
}

// split returns an answer's status line, header lines and body.
func split(raw string) (string, []string, string) {
	head, body, _ := strings.Cut(raw, "\r\n\r\n")
	lines := strings.Split(head, "\r\n")
	return lines[0], lines[1:], body
}

// headerChange is how an answer's header lines differ from the old
// answer's: the fields of the lines put in, and the number of old Link
// lines that gained parameters.
type headerChange struct {
	added    []string
	extended int
}

// onlyAdded says whether the new header lines are the old ones with
// lines of the fields in allow put in: the lines other than Link in the
// same order; every old link still there (or, if extend, with parameters
// appended: "; type=…"), in any order. Links are compared as RFC 8288
// link-values, whether a field line holds one or several separated by
// commas: the two forms are the same header. It returns what changed.
func onlyAdded(oldH, newH []string, allow map[string]bool, extend bool) (bool, headerChange) {
	var c headerChange
	var oldLinks, newLinks []string
	i := 0
	for _, l := range oldH {
		if strings.HasPrefix(l, "Link:") {
			oldLinks = append(oldLinks, linkValues(l)...)
		}
	}
	var rest []string
	for _, l := range oldH {
		if !strings.HasPrefix(l, "Link:") {
			rest = append(rest, l)
		}
	}
	for _, l := range newH {
		name, _, _ := strings.Cut(l, ":")
		switch {
		case name == "Link":
			newLinks = append(newLinks, linkValues(l)...)
		case i < len(rest) && l == rest[i]:
			i++
		case allow[name]:
			c.added = append(c.added, name)
		default:
			return false, c
		}
	}
	if i != len(rest) {
		return false, c
	}
	used := make([]bool, len(newLinks))
	match := func(o string, extended bool) bool {
		for j, l := range newLinks {
			if !used[j] && (l == o || extended && strings.HasPrefix(l, o+"; ")) {
				used[j] = true
				return true
			}
		}
		return false
	}
	var unmatched []string
	for _, o := range oldLinks {
		if !match(o, false) {
			unmatched = append(unmatched, o)
		}
	}
	for _, o := range unmatched {
		if !extend || !match(o, true) {
			return false, c
		}
		c.extended++
	}
	for j := range newLinks {
		if !used[j] {
			if !allow["Link"] {
				return false, c
			}
			c.added = append(c.added, "Link")
		}
	}
	return true, c
}

// linkValues splits a Link field line into its link-values: at the
// commas outside a URI-reference and outside quoted strings.
func linkValues(line string) []string {
	_, value, _ := strings.Cut(line, ":")
	var values []string
	inURI, inQuote, start := false, false, 0
	for i := 0; i < len(value); i++ {
		switch c := value[i]; {
		case inQuote && c == '\\':
			i++
		case c == '"' && !inURI:
			inQuote = !inQuote
		case c == '<' && !inQuote:
			inURI = true
		case c == '>' && !inQuote:
			inURI = false
		case c == ',' && !inURI && !inQuote:
			values = append(values, strings.TrimSpace(value[start:i]))
			start = i + 1
		}
	}
	return append(values, strings.TrimSpace(value[start:]))
}

// queryShape names a request-target's query for a report: "?info",
// "??", "(none)".
func queryShape(target string) string {
	if i := strings.IndexByte(target, '?'); i >= 0 {
		return target[i:]
	}
	return "(none)"
}

// tally counts strings, for a report.
type tally map[string]int

// String lists the counts, largest first.
func (t tally) String() string {
	keys := sortedKeys(t)
	sort.SliceStable(keys, func(i, j int) bool { return t[keys[i]] > t[keys[j]] })
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, t[k]))
	}
	return strings.Join(parts, ", ")
}

// compareCmd compares two recordings of the same corpus. By default
// every answer must be the same bytes (Date masked). -allow names header
// fields whose lines an answer may add; -extend-links lets an old Link
// line gain parameters; -negotiation lets an answer to a request whose
// Accept is not */* differ otherwise (content negotiation), and lists
// each. Status, body and the other header lines (order included) stay.
func compareCmd(args []string) error {
	fl := flag.NewFlagSet("compare", flag.ExitOnError)
	oldFile := fl.String("old", "", "the old answers")
	newFile := fl.String("new", "", "the new answers")
	allowList := fl.String("allow", "", "header fields an answer may add, comma-separated")
	extend := fl.Bool("extend-links", false, "an old link may gain parameters")
	negotiation := fl.Bool("negotiation", false, "an answer to an Accept other than */* may differ")
	label := fl.String("label", "", "what is compared, for the report")
	explainedFile := fl.String("explained", "", "the differences explained one by one (explained.tsv)")
	_ = fl.Parse(args)
	explained, err := readExplained(*explainedFile)
	if err != nil {
		return err
	}
	allow := map[string]bool{}
	for _, h := range strings.Split(*allowList, ",") {
		if h != "" {
			allow[h] = true
		}
	}
	o, err := readAnswers(*oldFile)
	if err != nil {
		return err
	}
	n, err := readAnswers(*newFile)
	if err != nil {
		return err
	}
	if len(o) != len(n) {
		return fmt.Errorf("%d old answers, %d new", len(o), len(n))
	}
	var same, withAdded, extendedAnswers, negotiated, byList, unexplained int
	addedBy := map[string]tally{}
	byAccept := tally{}
	for i := range o {
		a, b := o[i], n[i]
		if a.Raw == b.Raw {
			same++
			continue
		}
		as, ah, ab := split(a.Raw)
		bs, bh, bb := split(b.Raw)
		if ok, c := onlyAdded(ah, bh, allow, *extend); ok && as == bs && ab == bb {
			withAdded++
			if c.extended > 0 {
				extendedAnswers++
			}
			seen := map[string]bool{}
			for _, h := range c.added {
				if !seen[h] {
					if addedBy[h] == nil {
						addedBy[h] = tally{}
					}
					addedBy[h][queryShape(a.Target)]++
					seen[h] = true
				}
			}
			continue
		}
		if *negotiation && asksMediaType(a.request) {
			negotiated++
			byAccept[fmt.Sprintf("%s: %s (%s) -> %s (%s)", strings.Join(a.Header, "; "), strings.TrimPrefix(as, "HTTP/1.1 "), headerValue(ah, "Content-Type"), strings.TrimPrefix(bs, "HTTP/1.1 "), headerValue(bh, "Content-Type"))]++
			continue
		}
		if why, ok := explained.explain(a.request); ok {
			byList++
			fmt.Printf("  explained: %s %s [%s]: %s -> %s: %s\n%s\n", a.Method, a.Target, strings.Join(a.Header, "; "), as, bs, why, lineDiff(a.Raw, b.Raw))
			continue
		}
		unexplained++
		fmt.Printf("  DIFFERENT: %s %s %v (%s)\n%s\n", a.Method, short(a.Target), a.Header, a.Origin, lineDiff(a.Raw, b.Raw))
	}
	fmt.Printf("%s: %d requests compared, %d byte-identical (Date masked)", *label, len(o), same)
	if len(allow) > 0 {
		fmt.Printf(", %d differing only by added header lines", withAdded)
		if *extend {
			fmt.Printf(" (%d of them also by parameters appended to an old link)", extendedAnswers)
		}
	}
	if *negotiation {
		fmt.Printf(", %d negotiated by Accept", negotiated)
	}
	if len(explained) > 0 {
		fmt.Printf(", %d explained one by one", byList)
	}
	fmt.Printf(", %d unexplained\n", unexplained)
	for _, h := range sortedKeys(addedBy) {
		total := 0
		for _, c := range addedBy[h] {
			total += c
		}
		fmt.Printf("  %s added on %d answers; by query: %s\n", h, total, addedBy[h])
	}
	for _, k := range sortedKeys(byAccept) {
		fmt.Printf("  negotiated: %d× %s\n", byAccept[k], k)
	}
	if unexplained > 0 {
		return fmt.Errorf("%d answers differ unexplained", unexplained)
	}
	return nil
}

// explanation is a difference the report attributes one by one: the
// request (method, target, and a text one of its header lines holds),
// and why its answer changed.
type explanation struct{ method, target, header, why string }

// explanations are the lines of explained.tsv.
type explanations []explanation

// readExplained reads explained.tsv: method, request-target, a text a
// header line of the request holds (or -), why; # starts a comment.
func readExplained(path string) (explanations, error) {
	if path == "" {
		return nil, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out explanations
	for i, line := range strings.Split(string(b), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 4 {
			return nil, fmt.Errorf("%s:%d: want 4 tab-separated fields, got %d", path, i+1, len(f))
		}
		out = append(out, explanation{f[0], f[1], f[2], f[3]})
	}
	return out, nil
}

// explain returns why r's answer changed, if the list says.
func (e explanations) explain(r request) (string, bool) {
	for _, x := range e {
		if x.method != r.Method || x.target != r.Target {
			continue
		}
		if x.header == "-" {
			return x.why, true
		}
		for _, h := range r.Header {
			if strings.Contains(h, x.header) {
				return x.why, true
			}
		}
	}
	return "", false
}

// asksMediaType says whether r carries an Accept other than */*.
func asksMediaType(r request) bool {
	for _, h := range r.Header {
		if name, v, _ := strings.Cut(h, ":"); strings.EqualFold(name, "Accept") && strings.TrimSpace(v) != "*/*" {
			return true
		}
	}
	return false
}

// headerValue returns the value of the first header line named name.
func headerValue(lines []string, name string) string {
	for _, l := range lines {
		if n, v, ok := strings.Cut(l, ":"); ok && strings.EqualFold(n, name) {
			return name + ":" + v
		}
	}
	return "no " + name
}

// short shortens a long request-target for a report.
func short(s string) string {
	if len(s) > 120 {
		return fmt.Sprintf("%s…(%d bytes)", s[:100], len(s))
	}
	return s
}

// lineDiff shows the lines of two answers that differ, old then new.
func lineDiff(a, b string) string {
	al, bl := strings.Split(a, "\r\n"), strings.Split(b, "\r\n")
	inB, inA := map[string]bool{}, map[string]bool{}
	for _, l := range bl {
		inB[l] = true
	}
	for _, l := range al {
		inA[l] = true
	}
	var out []string
	for _, l := range al {
		if !inB[l] {
			out = append(out, "    - "+short(l))
		}
	}
	for _, l := range bl {
		if !inA[l] {
			out = append(out, "    + "+short(l))
		}
	}
	return strings.Join(out, "\n")
}
