package table

import "testing"

// tableForm loads table files and inline entries into one form of table.
type tableForm func(t *testing.T, files []string, inline []Entry) (Table, error)

// forEachTableForm runs test against both forms of a table: JSON files
// loaded into the heap, and the same files compiled with compileTables
// and mapped. The compiled file is named after the first JSON file, so
// that errors about it name that file too.
func forEachTableForm(t *testing.T, test func(t *testing.T, load tableForm)) {
	t.Run("heap", func(t *testing.T) {
		test(t, func(t *testing.T, files []string, inline []Entry) (Table, error) {
			return Load(files, inline)
		})
	})
	t.Run("compiled", func(t *testing.T) {
		test(t, func(t *testing.T, files []string, inline []Entry) (Table, error) {
			out := t.TempDir() + "/table.arkt"
			if len(files) > 0 {
				out = files[0] + ".arkt"
			}
			if _, err := Compile(files, out); err != nil {
				return nil, err
			}
			return Open([]string{out}, inline, true)
		})
	})
}
