package testkit

import (
	"os"
	"path/filepath"
	"testing"
)

func TestValidateXML(t *testing.T) {
	xsd := filepath.Join(t.TempDir(), "note.xsd")
	if err := os.WriteFile(xsd, []byte(`<?xml version="1.0"?>
<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">
  <xs:element name="note" type="xs:string"/>
</xs:schema>`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := ValidateXML(t, xsd, []byte(`<note>ok</note>`)); err != nil {
		t.Errorf("a valid document: %v", err)
	}
	for _, doc := range []string{`<memo>no</memo>`, `<note><b/></note>`, `<note>`} {
		if err := ValidateXML(t, xsd, []byte(doc)); err == nil {
			t.Errorf("%s: valid", doc)
		}
	}
}
