package bibread

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/testkit"
)

// btparseEntries parses BibTeX from stdin with Text::BibTeX (btparse) and
// writes each entry as a JSON object: its key, type, and raw fields;
// "error" when btparse could not parse it.
const btparseEntries = `use Text::BibTeX; use JSON::PP;
my $f = Text::BibTeX::File->new; $f->open("-") or die "stdin: $!";
my @out;
while (my $e = Text::BibTeX::Entry->new($f)) {
	if (!$e->parse_ok) { push @out, {error => "entry not parsed"}; next }
	my %h = (key => $e->key, type => $e->type, fields => {map { $_ => $e->get($_) } $e->fieldlist});
	push @out, \%h;
}
print JSON::PP->new->canonical->encode(\@out);`

// Entry is a BibTeX entry as btparse parses it: fields raw, as written
// (TeX and all), delimiters stripped and whitespace collapsed.
type Entry struct {
	// Key and Type are the entry's key and type.
	Key  string `json:"key"`
	Type string `json:"type"`
	// Fields are its fields by name, raw.
	Fields map[string]string `json:"fields"`
	// Error says why btparse could not parse it.
	Error string `json:"error"`
}

// Parse parses doc with btparse. Any warning btparse gives fails the test.
func Parse(t *testing.T, doc []byte) []Entry {
	t.Helper()
	perl := testkit.NeedTool(t, "perl", "perl")
	if err := exec.Command(perl, "-MText::BibTeX", "-e1").Run(); err != nil {
		testkit.Missing(t, "Text::BibTeX", "libtext-bibtex-perl")
	}
	cmd := exec.Command(perl, "-e", btparseEntries)
	cmd.Stdin = bytes.NewReader(doc)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || stderr.Len() > 0 {
		t.Fatalf("btparse: %v\n%s", err, stderr.String())
	}
	var entries []Entry
	if err := json.Unmarshal(out, &entries); err != nil {
		t.Fatalf("btparse: %v\n%s", err, out)
	}
	for _, e := range entries {
		if e.Error != "" {
			t.Fatalf("btparse: %s", e.Error)
		}
	}
	return entries
}
