package table

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzTableReader checks that the table reader never panics, that what it
// accepts is valid JSON (after an optional byte order mark), and that no
// string it returns passes its limit.
func FuzzTableReader(f *testing.F) {
	f.Add([]byte(`{"entries": [{"id": "ark:12345/x", "target": "/x", "meta": {"who": "a"}}]}`))
	f.Add([]byte("\uFEFF{\"entries\": []}"))
	f.Add([]byte(`{"entries": [{"id": "ark:12345/x", "id": "ark:12345/y"}]}`))
	f.Add([]byte(`[{"id": "ark:12345/x"}]`))
	f.Add([]byte(`{"entries": [], "x": 1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := NewReader(bytes.NewReader(data)).Each(func(e *Entry) error {
			if len(e.ID) > MaxIDBytes || len(e.Target) > MaxTargetBytes || len(e.Meta) > MaxMetaKeys {
				t.Fatalf("over a limit: %d, %d, %d", len(e.ID), len(e.Target), len(e.Meta))
			}
			for k, v := range e.Meta {
				if len(k) > MaxMetaKeyBytes || len(v) > MaxMetaValueBytes {
					t.Fatalf("meta over a limit: %d, %d", len(k), len(v))
				}
			}
			return nil
		})
		if err == nil && !json.Valid(bytes.TrimPrefix(data, []byte("\uFEFF"))) {
			t.Fatalf("accepted invalid JSON %q", data)
		}
	})
}
