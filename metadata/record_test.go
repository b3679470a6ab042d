package metadata

import (
	"reflect"
	"testing"
)

func TestNewPrecedence(t *testing.T) {
	id := Identifier{ID: "ark:12345/x5wf6789", URL: "https://ark.example.org/ark:12345/x5wf6789", Resolver: "https://ark.example.org/", Status: 302, Target: "https://repo.example.org/x"}
	for _, tc := range []struct {
		name     string
		meta     map[string]string
		defaults Defaults
		org      string
		field    func(*Record) any
		want     any
	}{
		{"own name beats EZID fields", map[string]string{"what": "Own", "datacite.title": "DataCite", "erc.what": "ERC"}, nil, "",
			func(r *Record) any { return r.Title }, "Own"},
		{"_profile first among EZID fields", map[string]string{"_profile": "erc", "datacite.title": "DataCite", "erc.what": "ERC"}, nil, "",
			func(r *Record) any { return r.Title }, "ERC"},
		{"datacite before dc and erc", map[string]string{"dc.title": "DC", "datacite.title": "DataCite", "erc.what": "ERC"}, nil, "",
			func(r *Record) any { return r.Title }, "DataCite"},
		{"ERC code is no value", map[string]string{"datacite.title": "(:unav)", "dc.title": "DC"}, nil, "",
			func(r *Record) any { return r.Title }, "DC"},
		{"entry's EZID field beats a default", map[string]string{"datacite.publisher": "Entry"}, Defaults{"publisher": "Default"}, "Org",
			func(r *Record) any { return r.Publisher }, "Entry"},
		{"default beats organization", nil, Defaults{"publisher": "Default"}, "Org",
			func(r *Record) any { return r.Publisher }, "Default"},
		{"organization is the last publisher", nil, nil, "Org",
			func(r *Record) any { return r.Publisher }, "Org"},
		{"SPDX license", nil, Defaults{"license": "CC-BY-4.0"}, "",
			func(r *Record) any { return r.License }, License{URI: "https://spdx.org/licenses/CC-BY-4.0", SPDX: "CC-BY-4.0"}},
		{"license URI", map[string]string{"license": "https://creativecommons.org/licenses/by/4.0/"}, nil, "",
			func(r *Record) any { return r.License }, License{URI: "https://creativecommons.org/licenses/by/4.0/"}},
		{"EZID resource type", map[string]string{"datacite.resourcetype": "image/Photograph"}, nil, "",
			func(r *Record) any { return r.Type }, ResourceType{General: "Image", Specific: "Photograph"}},
		{"DCMI type", map[string]string{"dc.type": "StillImage"}, nil, "",
			func(r *Record) any { return r.Type.SchemaOrg() }, "ImageObject"},
		{"creators", map[string]string{"who": "Curie, Marie <0000-0002-1825-0097>; Example Museum <https://ror.org/00x0x0x00>;; "}, nil, "",
			func(r *Record) any { return r.Creators }, []Creator{
				{Name: "Curie, Marie", Family: "Curie", Given: "Marie", URI: "https://orcid.org/0000-0002-1825-0097"},
				{Name: "Example Museum", URI: "https://ror.org/00x0x0x00"}}},
		{"items", map[string]string{"item": "https://example.org/a.csv text/csv; /local; https://example.org/b.tif"}, nil, "",
			func(r *Record) any { return r.Items }, []Item{{URL: "https://example.org/a.csv", Type: "text/csv"}, {URL: "https://example.org/b.tif"}}},
		{"subjects", map[string]string{"subject": "moths; ; Lepidoptera"}, nil, "",
			func(r *Record) any { return r.Subjects }, []string{"moths", "Lepidoptera"}},
		{"control characters dropped, format characters kept", map[string]string{"what": "a\x01b\x7fcd\u202Ee\tf"}, nil, "",
			func(r *Record) any { return r.Title }, "abcd\u202Ee\tf"},
		{"control characters that break lines made line feeds", map[string]string{"what": "a\u0085b\vc\fd\re\u2028f"}, nil, "",
			func(r *Record) any { return r.Title }, "a\nb\nc\nd\re\u2028f"},
		{"no withdrawal unless 410", map[string]string{"reason": "x"}, nil, "",
			func(r *Record) any { return r.Withdrawal }, (*Withdrawal)(nil)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := New(id, tc.meta, tc.defaults, tc.org)
			if got := tc.field(r); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %#v, want %#v", got, tc.want)
			}
		})
	}
}

func TestNewWithdrawal(t *testing.T) {
	id := Identifier{ID: "ark:12345/g5h6j7", URL: "https://ark.example.org/ark:12345/g5h6j7", Resolver: "https://ark.example.org/", Status: 410, Reason: "resolver's reason"}
	r := New(id, map[string]string{"withdrawn": "2025-01-10", "successor": "ark:/12345/g5-h6j8"}, nil, "")
	want := &Withdrawal{Date: Date{Raw: "2025-01-10", Year: 2025, Month: 1, Day: 10}, Reason: "resolver's reason",
		Successor: &Successor{ID: "ark:12345/g5h6j8", URL: "https://ark.example.org/ark:12345/g5h6j8"}}
	if !reflect.DeepEqual(r.Withdrawal, want) {
		t.Errorf("got %#v, want %#v", r.Withdrawal, want)
	}
	r = New(id, map[string]string{"reason": "Own reason", "successor": "https://example.org/new"}, nil, "")
	if r.Withdrawal.Reason != "Own reason" || r.Withdrawal.Successor.URL != "https://example.org/new" || r.Withdrawal.Date.Known() {
		t.Errorf("got %#v", r.Withdrawal)
	}
}

func TestParseDate(t *testing.T) {
	for in, want := range map[string][]int{
		"1903": {1903}, "1903-05": {1903, 5}, "1903-05-17": {1903, 5, 17}, "19030517": {1903, 5, 17},
		"2024-05-01T10:00:00Z": {2024, 5, 1}, "1901-1905": {1901}, "1901, 1905": {1901},
		"(:unav)": nil, "about 1900": nil, "1903-13": nil, "": nil,
	} {
		if got := ParseDate(in).Parts(); !reflect.DeepEqual(got, want) {
			t.Errorf("ParseDate(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestParseLanguage(t *testing.T) {
	for in, want := range map[string]string{"en": "en", "fr-CA": "fr-CA", "zh-Hant-TW": "zh-Hant-TW", "de-1996": "de-1996",
		"English": "English", "en_US": "", "1en": "", "en-": "", "-en": "", "toolongtag": "", "": "", "(:unav)": ""} {
		if got := ParseLanguage(in); got != want {
			t.Errorf("ParseLanguage(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestWithdrawalStatement(t *testing.T) {
	w := &Withdrawal{Date: ParseDate("2025-01-10"), Reason: "At the rights holder's request.", Successor: &Successor{URL: "https://example.org/new"}}
	if got, want := w.Statement(), "Withdrawn on 2025-01-10: At the rights holder's request. Replaced by https://example.org/new."; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := (&Withdrawal{}).Statement(); got != "Withdrawn." {
		t.Errorf("got %q", got)
	}
}
