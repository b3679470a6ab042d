package normalize

import "testing"

func TestParsePrefix(t *testing.T) {
	for _, tt := range []struct {
		prefix, naan, shoulder string
		ok                     bool
	}{
		{"ark:12345/x5", "12345", "x5", true},
		{"ark:/12345/x-5", "12345", "x5", true},
		{"ARK:12345/x5", "12345", "x5", true},
		{"ark:12345", "12345", "", true},
		{"ark:/12345", "12345", "", true},
		{"ark:12345/x5.en", "", "", false},
		{"ark:12345/x5?info", "", "", false},
		{"urn:isbn:1", "", "", false},
		{"ark:", "", "", false},
	} {
		naan, shoulder, err := ParsePrefix(tt.prefix)
		if (err == nil) != tt.ok || naan != tt.naan || shoulder != tt.shoulder {
			t.Errorf("ParsePrefix(%q) = %q, %q, %v; want %q, %q, ok %v", tt.prefix, naan, shoulder, err, tt.naan, tt.shoulder, tt.ok)
		}
	}
}
