package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// repeatedKey returns an error naming the first key that an object in the
// JSON value data holds twice, or nil; data has been decoded already, so
// it is valid JSON. encoding/json keeps the last of two keys, where a
// reader sees the first as well: every body is refused then, as table files
// are (table/tablejson.go), with the same reason. In the entry itself, the
// outermost object, keys are compared regardless of case, since its fields
// match them so; deeper (meta), exactly.
func repeatedKey(data []byte) error {
	type object struct {
		keys     map[string]bool
		expected bool   // a key is next, not a value
		last     string // the key of the value being read
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var stack []*object // the objects being read; nil stands for an array
	var names []string  // the key each is the value of (in an array, the array's); "" for the entry
	valueRead := func() {
		if n := len(stack); n > 0 && stack[n-1] != nil {
			stack[n-1].expected = true
		}
	}
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil // the end: the decoder has reported any error
		}
		if n := len(stack); n > 0 && stack[n-1] != nil && stack[n-1].expected {
			if k, ok := tok.(string); ok {
				o := stack[n-1]
				seen := k
				if n == 1 {
					seen = strings.ToLower(k)
				}
				if o.keys[seen] {
					if names[n-1] == "" {
						return fmt.Errorf("%q appears twice in the entry: a repeated key is refused, so that the table means what its reader sees", k)
					}
					return fmt.Errorf("%s %q appears twice: a repeated key is refused, so that the table means what its reader sees", names[n-1], k)
				}
				o.keys[seen], o.expected, o.last = true, false, k
				continue
			}
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			name := ""
			if n := len(stack); n > 0 && stack[n-1] != nil {
				name = stack[n-1].last
			} else if n > 0 {
				name = names[n-1]
			}
			var o *object
			if tok == json.Delim('{') {
				o = &object{keys: map[string]bool{}, expected: true}
			}
			stack, names = append(stack, o), append(names, name)
		case json.Delim('}'), json.Delim(']'):
			stack, names = stack[:len(stack)-1], names[:len(names)-1]
			valueRead()
		default:
			valueRead()
		}
	}
}
