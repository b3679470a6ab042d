package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/importer"
)

func TestNormalizeAll(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		stdin      string
		wantOut    string
		wantErr    string // every line of stderr, in order
		wantFailed int
	}{
		{
			name:    "arguments",
			args:    []string{"ark:/12-345/c37-009-31--", "ARK:/12345/x.svg.en?info#f", "urn:ISBN:0-123%2f"},
			wantOut: "ark:12345/c3700931\nark:12345/x.en.svg?info#f\nurn:isbn:0-123%2F\n",
		},
		{
			name:       "bad arguments are reported and the rest still printed",
			args:       []string{"ark:12345", "ark:12345/a", "ark:12345/b%G1"},
			wantOut:    "ark:12345/a\n",
			wantErr:    "ark:12345: not an identifier at byte 9: the ARK has no Name after its NAAN (a pseudo-ARK)\nark:12345/b%G1: invalid percent-encoding at byte 11: \"%G1\" is not %XX with two hex digits\n",
			wantFailed: 2,
		},
		{
			name:    "stdin, blank lines and CRLF",
			stdin:   "ark:/12345/x-1\r\n\n   \n\tark:12345/y..z/ \nurn:x-y:z\n",
			wantOut: "ark:12345/x1\nark:12345/y.z\nurn:x-y:z\n",
		},
		{
			name:       "stdin with bad lines",
			stdin:      "ark:12345/a\nhttp://example.org/\nark:12345/b\n",
			wantOut:    "ark:12345/a\nark:12345/b\n",
			wantErr:    "http://example.org/: not an identifier at byte 0: an identifier starts with \"ark:\" or \"urn:\"\n",
			wantFailed: 1,
		},
		{
			name:       "control characters in rejected input are quoted",
			stdin:      "ark:12345/x\x1b[31m\n",
			wantErr:    "\"ark:12345/x\\x1b[31m\": control character at byte 11: control character U+001B is not allowed\n",
			wantFailed: 1,
		},
		{
			name:    "resolver URLs stand for their identifiers",
			args:    []string{"https://n2t.net/ark:/12345/x-1?info", "http://example.org/resolver/ARK:12345/y", "https://nbn-resolving.org/URN:NBN:de:101-2024"},
			wantOut: "ark:12345/x1?info\nark:12345/y\nurn:nbn:de:101-2024\n",
		},
		{
			name:       "errors in a resolver URL count bytes from its start",
			args:       []string{"https://n2t.net/ark:12345"},
			wantErr:    "https://n2t.net/ark:12345: not an identifier at byte 25: the ARK has no Name after its NAAN (a pseudo-ARK)\n",
			wantFailed: 1,
		},
		{
			name:  "empty stdin",
			stdin: "",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			failed, err := normalizeAll(tt.args, strings.NewReader(tt.stdin), &out, &errOut)
			if err != nil {
				t.Fatalf("normalizeAll: %v", err)
			}
			if failed != tt.wantFailed {
				t.Errorf("failed = %d, want %d", failed, tt.wantFailed)
			}
			if out.String() != tt.wantOut {
				t.Errorf("stdout = %q, want %q", out.String(), tt.wantOut)
			}
			if errOut.String() != tt.wantErr {
				t.Errorf("stderr = %q, want %q", errOut.String(), tt.wantErr)
			}
		})
	}
}

func TestNormalizeAllArgumentsIgnoreStdin(t *testing.T) {
	var out, errOut bytes.Buffer
	if _, err := normalizeAll([]string{"ark:12345/a"}, strings.NewReader("ark:12345/b\n"), &out, &errOut); err != nil {
		t.Fatal(err)
	}
	if out.String() != "ark:12345/a\n" {
		t.Errorf("stdout = %q, want only the argument", out.String())
	}
}

func TestNormalizeAllLineTooLong(t *testing.T) {
	var out, errOut bytes.Buffer
	long := "ark:12345/" + strings.Repeat("x", importer.MaxLineBytes)
	if _, err := normalizeAll(nil, strings.NewReader(long), &out, &errOut); err == nil {
		t.Error("a line longer than maxLineBytes: no error")
	}
}

func TestTerminalSafe(t *testing.T) {
	for in, want := range map[string]string{
		"ark:12345/x":               "ark:12345/x",
		"ark:12345/4бф3х1":          "ark:12345/4бф3х1",
		"ark:12345/a b":             "ark:12345/a b",
		"ark:12345/a\tb":            `"ark:12345/a\tb"`,
		"ark:12345/\u202ex":         `"ark:12345/\u202ex"`,
		"ark:12345/\xffx":           `"ark:12345/\xffx"`,
		"ark:12345/x\u0085y":        `"ark:12345/x\u0085y"`,
		"ark:12345/\x1b[2Jx":        `"ark:12345/\x1b[2Jx"`,
		"ark:12345/zero\u200bwidth": `"ark:12345/zero\u200bwidth"`,
	} {
		if got := terminalSafe(in); got != want {
			t.Errorf("terminalSafe(%q) = %s, want %s", in, got, want)
		}
	}
}
