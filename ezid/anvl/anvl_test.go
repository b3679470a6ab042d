package anvl

import (
	"encoding/json"
	"errors"
	"os/exec"
	"reflect"
	"strings"
	"testing"
)

func TestParseSpecExamples(t *testing.T) {
	cases := []struct {
		name, body string
		want       []Element
	}{
		{"three elements", "who: Proust, Marcel\nwhat: Remembrance of Things Past\nwhen: 1922\n",
			[]Element{{"who", "Proust, Marcel"}, {"what", "Remembrance of Things Past"}, {"when", "1922"}}},
		{"comment and continuation", "# The following two elements are identical:\nwho: Proust,\n  Marcel\nwhat: Proust, Marcel",
			[]Element{{"who", "Proust, Marcel"}, {"what", "Proust, Marcel"}}},
		{"CR LF and CR", "a: 1\r\nb: 2\rc: 3", []Element{{"a", "1"}, {"b", "2"}, {"c", "3"}}},
		{"percent-encoded name and value", "erc%3Awho: a%0Ab%25c%3Ad: e", []Element{{"erc:who", "a\nb%c:d: e"}}},
		{"lower-case hex", "a: %c3%a9", []Element{{"a", "é"}}},
		{"empty value kept (an update deletes)", "_target:\n", []Element{{"_target", ""}}},
		{"continuation of an empty value", "a:\n  b\n\tc", []Element{{"a", "b c"}}},
		{"whole-record XML", "datacite: <?xml version=\"1.0\"?>%0A<resource/>", []Element{{"datacite", "<?xml version=\"1.0\"?>\n<resource/>"}}},
		{"nothing", "", nil},
	}
	for _, c := range cases {
		got, err := Parse(c.body)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: Parse(%q) = %q, %v; want %q", c.name, c.body, got, err, c.want)
		}
	}
}

func TestParseRefusals(t *testing.T) {
	cases := []struct {
		body string
		want error
	}{
		{"who Proust", ErrNoColon},
		{": value", ErrEmptyLabel},
		{"a: 1\na: 2", ErrRepeatedLabel},
		{"  continued", ErrContinuation},
		{"a: 1\n\n  continued", ErrContinuation},
		{"a: 50%", ErrPercentDecode},
		{"a: %G1", ErrPercentDecode},
		{"a: \xff", ErrEncoding},
		{"a: %FF", ErrEncoding},
	}
	for _, c := range cases {
		if _, err := Parse(c.body); !errors.Is(err, c.want) {
			t.Errorf("Parse(%q): %v, want %v", c.body, err, c.want)
		}
	}
}

func TestFormatEscapes(t *testing.T) {
	got := Format([]Element{{"a:b%", "x: 100%\r\ny"}, {"erc.who", "Proust, Marcel"}})
	want := "a%3Ab%25: x: 100%25%0D%0Ay\nerc.who: Proust, Marcel\n"
	if got != want {
		t.Fatalf("Format = %q, want %q", got, want)
	}
}

// TestFormatReadBySpecParser reads Format's output with the Python parser
// that the API document gives clients, and Parse with the encoder it gives.
func TestFormatReadBySpecParser(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed")
	}
	elems := []Element{{"_target", "https://example.org/a?b=c%20d"}, {"who:what", "line1\nline2\r\n100%"}, {"datacite", "<?xml version=\"1.0\"?>\n<resource>é</resource>"}}
	const script = `import re, sys, json
def unescape (s):
  return re.sub("%([0-9A-Fa-f][0-9A-Fa-f])", lambda m: chr(int(m.group(1), 16)), s)
def escape (s):
  return re.sub("[%:\r\n]", lambda c: "%%%02X" % ord(c.group(0)), s)
anvl = sys.stdin.buffer.read()
metadata = dict(tuple(unescape(v).strip() for v in l.split(":", 1)) for l in anvl.decode("UTF-8").splitlines())
json.dump(metadata, sys.stdout)
sys.stdout.write("\n")
sys.stdout.write(json.dumps("\n".join("%s: %s" % (escape(n), escape(v)) for n, v in metadata.items())))
`
	cmd := exec.Command(py, "-c", script)
	cmd.Stdin = strings.NewReader(Format(elems))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python: %v", err)
	}
	first, second, _ := strings.Cut(string(out), "\n")
	var read map[string]string
	if err := json.Unmarshal([]byte(first), &read); err != nil {
		t.Fatal(err)
	}
	for _, e := range elems {
		// The spec's parser decodes byte by byte (chr of each %XX), so
		// compare ASCII only; é is sent unescaped.
		if read[e.Name] != strings.TrimSpace(e.Value) {
			t.Errorf("the spec's parser read %q as %q, want %q", e.Name, read[e.Name], e.Value)
		}
	}
	var body string
	if err := json.Unmarshal([]byte(second), &body); err != nil {
		t.Fatal(err)
	}
	back, err := Parse(body)
	if err != nil || !reflect.DeepEqual(back, elems) {
		t.Errorf("Parse of the spec's encoder's output = %q, %v; want %q", back, err, elems)
	}
}

func TestRecords(t *testing.T) {
	const download = ":: ark:/99999/fk4gt78tq\n_created: 1300812337\n_export: yes\n_owner: apitest\nerc.who: Proust, Marcel\n\n" +
		":: doi:10.5072/FK2S75905Q\r\n_profile: datacite\r\ndatacite: <?xml version=\"1.0\"?>%0A<resource/>\r\n\r\n\r\n"
	rs := NewRecords(strings.NewReader(download))
	var got []Record
	for rs.Next() {
		got = append(got, rs.Record())
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	want := []Record{
		{ID: "ark:/99999/fk4gt78tq", Line: 1, Elements: []Element{{"_created", "1300812337"}, {"_export", "yes"}, {"_owner", "apitest"}, {"erc.who", "Proust, Marcel"}}},
		{ID: "doi:10.5072/FK2S75905Q", Line: 7, Elements: []Element{{"_profile", "datacite"}, {"datacite", "<?xml version=\"1.0\"?>\n<resource/>"}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("records = %+v\nwant %+v", got, want)
	}
}

func TestRecordsRefusals(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"_owner: x\n", "line 1: a record's header line"},
		{":: ark:/1/a\nno colon\n", "line 2: no colon in line"},
		{":: ark:/1/a\na: 1\n\n:: ark:/1/b\na: %Z\n", "line 5: percent-decode error"},
	} {
		rs := NewRecords(strings.NewReader(c.in))
		for rs.Next() {
		}
		if err := rs.Err(); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.in, err, c.want)
		}
	}
}
