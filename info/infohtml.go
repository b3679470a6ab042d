package info

import (
	"bytes"
	_ "embed"
	"fmt"
	htmltemplate "html/template"
	"os"

	"github.com/caddy-ark/caddy-ark/internal/visible"
)

// defaultInfoPage is the HTML page of ?info for browsers, replaced by the
// info_template file when one is configured.
//
//go:embed info.html
var defaultInfoPage string

// LoadPage parses the template in the file at path, or the default
// page when path is "", so that a bad template fails the load.
func LoadPage(path string) (*htmltemplate.Template, error) {
	text := defaultInfoPage
	if path != "" {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("info_template: %w", err)
		}
		text = string(data)
	}
	t, err := htmltemplate.New("info").Funcs(visible.Funcs).Option("missingkey=zero").Parse(text)
	if err != nil {
		return nil, fmt.Errorf("info_template %s: %w", path, err)
	}
	return t, nil
}

// RenderPage executes page for rec. html/template escapes every value
// for where it stands, so request-derived text cannot become markup.
func RenderPage(page *htmltemplate.Template, rec *Record) ([]byte, error) {
	var buf bytes.Buffer
	if err := page.Execute(&buf, rec); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
