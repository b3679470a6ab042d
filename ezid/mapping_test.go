package ezid

import (
	"errors"
	"net/http"
	"reflect"
	"testing"
	"time"

	"github.com/caddy-ark/caddy-ark/ezid/anvl"
	"github.com/caddy-ark/caddy-ark/store"
)

var (
	created = time.Unix(1300812337, 0).UTC()
	alice   = Writer{Name: "alice", Now: created, DefaultTarget: "https://ezid.example.org/id/ark:/12345/x5a"}
)

func parse(t *testing.T, body string) []anvl.Element {
	t.Helper()
	elems, err := anvl.Parse(body)
	if err != nil {
		t.Fatal(err)
	}
	return elems
}

// TestCreateThenGet creates as the spec's example does and reads the
// elements back as GET shows them.
func TestCreateThenGet(t *testing.T) {
	b, err := Apply(nil, "ark:12345/x5a", parse(t, "_target: http://www.gutenberg.org/ebooks/7178\n_profile: erc\nerc.who: Proust, Marcel\nerc.what: Remembrance of Things Past\nerc.when: 1922\n"), alice)
	if err != nil {
		t.Fatal(err)
	}
	if b.Status != http.StatusFound || b.Target != "http://www.gutenberg.org/ebooks/7178" || !b.Passthrough {
		t.Fatalf("binding %+v", b)
	}
	b.Version, b.Updated, b.By = 1, time.Unix(1300913550, 0), "person:alice"
	got := anvl.Format(Elements(b, View{}))
	want := "_owner: alice\n_created: 1300812337\n_updated: 1300913550\n_target: http://www.gutenberg.org/ebooks/7178\n_profile: erc\n_status: public\n_export: yes\n" +
		"erc.what: Remembrance of Things Past\nerc.when: 1922\nerc.who: Proust, Marcel\n"
	if got != want {
		t.Errorf("elements:\n%s\nwant:\n%s", got, want)
	}
}

func TestStatusTransitions(t *testing.T) {
	reserved, err := Apply(nil, "ark:12345/x5a", parse(t, "_status: reserved\n_target: https://example.org/a\ndc.title: T"), alice)
	if err != nil || reserved.Status != 0 || reserved.Target != "https://example.org/a" || reserved.Meta["dc.title"] != "T" {
		t.Fatalf("reserved: %+v, %v", reserved, err)
	}
	if st, _ := StatusOf(reserved); st != Reserved {
		t.Errorf("StatusOf(reserved) = %s", st)
	}
	if _, err := Apply(nil, "ark:12345/x5a", parse(t, "_status: unavailable | gone"), alice); !isElementError(err, "_status: invalid identifier status change") {
		t.Errorf("new and unavailable: %v", err)
	}
	if _, err := Apply(reserved, "ark:12345/x5a", parse(t, "_status: unavailable"), alice); !isElementError(err, "_status: invalid identifier status change") {
		t.Errorf("reserved to unavailable: %v", err)
	}
	if _, err := Apply(nil, "ark:12345/x5a", parse(t, "_status: hidden"), alice); !isElementError(err, "_status: invalid identifier status") {
		t.Errorf("an unknown status: %v", err)
	}
	public, err := Apply(reserved, "ark:12345/x5a", parse(t, "_status: public"), alice)
	if err != nil || public.Status != http.StatusFound || public.Target != "https://example.org/a" {
		t.Fatalf("reserved to public: %+v, %v", public, err)
	}
	if _, err := Apply(public, "ark:12345/x5a", parse(t, "_status: reserved"), alice); !isElementError(err, "_status: invalid identifier status change") {
		t.Errorf("public to reserved: %v", err)
	}
	gone, err := Apply(public, "ark:12345/x5a", parse(t, "_status: unavailable | withdrawn by author"), alice)
	if err != nil {
		t.Fatal(err)
	}
	if st, reason := StatusOf(gone); st != Unavailable || reason != "withdrawn by author" || gone.Target != "https://example.org/a" || gone.Status != http.StatusFound {
		t.Errorf("public to unavailable: %s %q %+v", st, reason, gone)
	}
	still, err := Apply(gone, "ark:12345/x5a", parse(t, "dc.title: U"), alice)
	if st, reason := StatusOf(still); err != nil || st != Unavailable || reason != "withdrawn by author" {
		t.Errorf("an update that leaves _status: %s %q %v", st, reason, err)
	}
	back, err := Apply(gone, "ark:12345/x5a", parse(t, "_status: public"), alice)
	if st, _ := StatusOf(back); err != nil || st != Public || back.Meta[StatusElement] != "" {
		t.Errorf("unavailable to public: %s %+v %v", st, back, err)
	}
	withdrawn := &store.Binding{Key: "ark:12345/x5a", Status: http.StatusGone, Reason: "rights"}
	if _, err := Apply(withdrawn, "ark:12345/x5a", parse(t, "_status: public"), alice); !errors.Is(err, ErrWithdrawn) {
		t.Errorf("a native withdrawal revived: %v", err)
	}
	if got := StatusValue(StatusOf(withdrawn)); got != "unavailable | rights" {
		t.Errorf("a withdrawal shows as %q", got)
	}
}

func TestUpdateDeletesEmptyElements(t *testing.T) {
	b, _ := Apply(nil, "ark:12345/x5a", parse(t, "_target: https://example.org/a\nerc.who: A\n_export: no"), alice)
	u, err := Apply(b, "ark:12345/x5a", parse(t, "_target:\nerc.who:\n_export: YES\nerc.what: W"), alice)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"_owner": "alice", "_created": "1300812337", "erc.what": "W"}
	if u.Target != alice.DefaultTarget || !reflect.DeepEqual(u.Meta, want) {
		t.Errorf("updated: %q %v; want the default target and %v", u.Target, u.Meta, want)
	}
}

func TestRestrictedElements(t *testing.T) {
	for _, body := range []string{"_created: 1", "_updated: 1", "_ownergroup: g", "_datacenter: CDL.CDL", "_shadowedby: ark:/b1234/x"} {
		if _, err := Apply(nil, "ark:12345/x5a", parse(t, body), alice); !isElementError(err, "field is not settable") {
			t.Errorf("%s: %v", body, err)
		}
	}
	if _, err := Apply(nil, "ark:12345/x5a", parse(t, "_export: maybe"), alice); !isElementError(err, "_export: value must be 'yes' or 'no'") {
		t.Errorf("_export: %v", err)
	}
	if _, err := Apply(nil, "ark:12345/x5a", parse(t, "_crossref: yes"), alice); !isElementError(err, "_crossref: only DOI identifiers may be registered with Crossref") {
		t.Errorf("_crossref: %v", err)
	}
}

// TestImportKeepsEZIDRecord applies a record of an EZID download as an
// import does and reads back the same elements.
func TestImportKeepsEZIDRecord(t *testing.T) {
	const record = "_owner: apitest\n_ownergroup: apitest\n_created: 1300812337\n_updated: 1300913550\n_target: http://www.gutenberg.org/ebooks/7178\n" +
		"_profile: datacite\n_status: unavailable | withdrawn by author\n_export: no\n" +
		"datacite: <?xml version=\"1.0\"?>%0A<resource/>\ndatacite.title: T\n"
	b, err := Apply(nil, "ark:99999/fk4gt78tq", parse(t, record), Writer{Name: "importer", Trusted: true})
	if err != nil {
		t.Fatal(err)
	}
	b.Version, b.Updated, b.By = 1, time.Now(), "importer"
	if got := anvl.Format(Elements(b, View{})); got != record {
		t.Errorf("read back:\n%s\nwant:\n%s", got, record)
	}
	reserved, err := Apply(nil, "ark:99999/fk4r", parse(t, "_status: reserved\n_created: 1300812337\n_updated: 1300812337\n_owner: apitest"), Writer{Trusted: true})
	if err != nil || reserved.Status != 0 || reserved.Target != "" {
		t.Errorf("a reserved record imports as %+v, %v", reserved, err)
	}
}

func TestDeletedNeverAgain(t *testing.T) {
	deleted := &store.Binding{Key: "ark:12345/x5a", Meta: map[string]string{DeletedMeta: "1"}, Version: 3}
	if !Deleted(deleted) {
		t.Fatal("not Deleted")
	}
	if _, err := Apply(deleted, "ark:12345/x5a", nil, alice); !errors.Is(err, ErrDeleted) {
		t.Errorf("a deleted name created again: %v", err)
	}
}

func TestSpell(t *testing.T) {
	for in, want := range map[string]string{"ark:12345/x5wf": "ark:/12345/x5wf", "ark:/12345/x5": "ark:/12345/x5", "urn:nbn:de:1": "urn:nbn:de:1"} {
		if got := Spell(in); got != want {
			t.Errorf("Spell(%q) = %q, want %q", in, got, want)
		}
	}
}

func isElementError(err error, suffix string) bool {
	var ee *ElementError
	if !errors.As(err, &ee) {
		return false
	}
	s := ee.Error()
	return len(s) >= len(suffix) && s[len(s)-len(suffix):] == suffix
}
