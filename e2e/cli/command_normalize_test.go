package cli

import (
	"strings"
	"testing"

	"github.com/caddy-ark/caddy-ark/internal/caddytest"
)

func TestArkCommandNormalize(t *testing.T) {
	out, _, err := caddytest.RunArkCommand(t, "", "normalize", "ark:/12345/x-y")
	if err != nil || out != "ark:12345/xy\n" {
		t.Errorf("normalize ark:/12345/x-y: out %q, err %v", out, err)
	}
	out, _, err = caddytest.RunArkCommand(t, "ark:/12345/a\nark:/12345/b\n", "normalize")
	if err != nil || out != "ark:12345/a\nark:12345/b\n" {
		t.Errorf("normalize from stdin: out %q, err %v", out, err)
	}
	out, errOut, err := caddytest.RunArkCommand(t, "", "normalize", "ark:12345/a", "ark:12345")
	if err == nil {
		t.Error("normalize ark:12345: no error")
	}
	if out != "ark:12345/a\n" || !strings.HasPrefix(errOut, "ark:12345: not an identifier at byte 9") {
		t.Errorf("normalize ark:12345/a ark:12345: out %q, stderr %q", out, errOut)
	}
	if strings.Contains(errOut, "Error:") {
		t.Errorf("failures reported twice: stderr %q", errOut)
	}
	if _, _, err := caddytest.RunArkCommand(t, "", "typo"); err == nil {
		t.Error("ark typo: no error")
	}
}

func TestBinaryNormalize(t *testing.T) {
	tests := []struct {
		stdin      string
		args       []string
		wantOut    string
		wantErr    string
		wantStatus int
	}{
		{
			args:    []string{"ark", "normalize", "ark:/12-345/c37-009-31--", "ark:12345/x.svg.en"},
			wantOut: "ark:12345/c3700931\nark:12345/x.en.svg\n",
		},
		{
			args:       []string{"ark", "normalize", "ark:12345/ok", "ark:12,345/x"},
			wantOut:    "ark:12345/ok\n",
			wantErr:    "ark:12,345/x: ",
			wantStatus: 1,
		},
		{
			stdin:   "ark:/12345/a\n\nark:/12345/b\n",
			args:    []string{"ark", "normalize"},
			wantOut: "ark:12345/a\nark:12345/b\n",
		},
		{
			stdin:      "ark:/12345/a\nark:/12345\n",
			args:       []string{"ark", "normalize"},
			wantOut:    "ark:12345/a\n",
			wantErr:    "ark:/12345: not an identifier at byte 10",
			wantStatus: 1,
		},
		{
			args:       []string{"ark", "typo"},
			wantErr:    `unknown command "typo"`,
			wantStatus: 1,
		},
	}
	for _, tt := range tests {
		out, errOut, status := caddytest.RunCaddy(t, tt.stdin, tt.args...)
		if out != tt.wantOut || status != tt.wantStatus || !strings.Contains(errOut, tt.wantErr) {
			t.Errorf("caddy %v < %q:\nstdout %q, want %q\nstderr %q, want it to contain %q\nstatus %d, want %d",
				tt.args, tt.stdin, out, tt.wantOut, errOut, tt.wantErr, status, tt.wantStatus)
		}
		if tt.wantErr == "" && errOut != "" {
			t.Errorf("caddy %v: unexpected stderr %q", tt.args, errOut)
		}
	}
}
