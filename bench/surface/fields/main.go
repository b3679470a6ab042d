//go:build surface

// Command fields prints the JSON config surface of caddy-ark's Caddy
// modules: one line per JSON field path with its Go type (caddy-ark's own
// types named without their package: a type moved between the module's
// packages keeps its JSON, as MetadataDefaults did from the root to
// answer in issue 37), for every
// registered module whose ID starts with http.handlers.ark or whose Go
// type lives in the caddy-ark module. bench/surface.sh copies it into
// each checkout it compares (as cmd/surfacefields, the one place allowed
// to import the root package) and builds it there with -tags surface, so
// that each commit's own modules are walked.
package main

import (
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"

	"github.com/caddyserver/caddy/v2"
	_ "github.com/caddyserver/caddy/v2/modules/standard"

	_ "github.com/caddy-ark/caddy-ark"
)

// modulePath is the Go module whose types count as caddy-ark's.
const modulePath = "github.com/caddy-ark/caddy-ark"

func main() {
	var lines []string
	for _, id := range caddy.Modules() {
		info, err := caddy.GetModule(id)
		if err != nil {
			fmt.Fprintln(os.Stderr, "fields:", err)
			os.Exit(1)
		}
		t := reflect.TypeOf(info.New())
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if !strings.HasPrefix(string(info.ID), "http.handlers.ark") && !strings.HasPrefix(t.PkgPath(), modulePath) {
			continue
		}
		lines = append(lines, fmt.Sprintf("module %s %s.%s", info.ID, t.PkgPath(), t.Name()))
		walk(&lines, string(info.ID), t, map[reflect.Type]bool{})
	}
	sort.Strings(lines)
	fmt.Println(strings.Join(lines, "\n"))
	if len(lines) == 0 {
		fmt.Fprintln(os.Stderr, "fields: no caddy-ark module registered")
		os.Exit(1)
	}
}

// walk appends a line "path type" for every JSON field of t under path,
// following structs, pointers, slices ([]) and maps ({}); a type already
// on the way down is named, not entered again.
func walk(lines *[]string, path string, t reflect.Type, seen map[reflect.Type]bool) {
	switch t.Kind() {
	case reflect.Pointer:
		walk(lines, path, t.Elem(), seen)
		return
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() != reflect.Uint8 {
			walk(lines, path+"[]", t.Elem(), seen)
		}
		return
	case reflect.Map:
		walk(lines, path+"{}", t.Elem(), seen)
		return
	case reflect.Struct:
	default:
		return
	}
	if seen[t] || t.PkgPath() == "time" {
		return
	}
	seen[t] = true
	defer delete(seen, t)
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		if name == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		if f.Anonymous && name == "" {
			walk(lines, path, f.Type, seen)
			continue
		}
		if name == "" {
			name = f.Name
		}
		p := path + "." + name
		*lines = append(*lines, fmt.Sprintf("%s %s", p, typeName(f.Type)))
		walk(lines, p, f.Type, seen)
	}
}

// typeName spells t as reflect does, but for caddy-ark's own named types,
// which it names without their package.
func typeName(t reflect.Type) string {
	if t.Name() != "" {
		if strings.HasPrefix(t.PkgPath(), modulePath) {
			return t.Name()
		}
		return t.String()
	}
	switch t.Kind() {
	case reflect.Pointer:
		return "*" + typeName(t.Elem())
	case reflect.Slice:
		return "[]" + typeName(t.Elem())
	case reflect.Array:
		return fmt.Sprintf("[%d]%s", t.Len(), typeName(t.Elem()))
	case reflect.Map:
		return "map[" + typeName(t.Key()) + "]" + typeName(t.Elem())
	}
	return t.String()
}
