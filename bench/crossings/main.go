// Command crossings follows a request through the code from a function
// (by default the handler's ServeHTTP) and counts how often it crosses
// between files, and how often it crosses back up: into a file it had
// entered before. It is issue 37's measure of how much of the code one
// has to hold in one's head to follow an answer.
//
// The walk is static, over the call graph of the packages named
// (default: the root package and the answer path, ./ and ./answer): from
// the start it reads each function body in source order, and at each call
// of, or reference to, a function of those packages that it has not
// walked yet, it steps into that function's file, walks it, and steps
// back to the caller's file. Calls through interfaces and into other
// packages are not followed: those packages are tested alone, behind
// their Go API. Each function is walked once, so every branch a request
// can take is followed once.
//
//	go run ./bench/crossings [-v] [-from 'pkg.(*Type).Method'] [packages]
//
// With -executed, the walk follows only the functions a run executed, by
// its coverage profile: a traced run of one request, say, rather than of
// every branch. For a redirect with signposting on, over every package
// of the module:
//
//	go test -run '^$' -bench 'BenchmarkServeHTTPSignposting/redirect' -benchtime 1x \
//	    -coverpkg ./... -coverprofile /tmp/redirect.cover .
//	go run ./bench/crossings -executed /tmp/redirect.cover ./...
//
// (the profile also holds what the benchmark's setup ran; the walk only
// reaches what ServeHTTP calls.)
//
// It type-checks the packages from source and everything they import
// from the export data `go list -export` gives, so it needs the module's
// dependencies built (the build cache) and nothing else.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// listed is what `go list -json` says of a package.
type listed struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Export     string
	DepOnly    bool
}

// function is a function declared in one of the packages walked.
type function struct {
	file       string // the file it is declared in, relative to the module
	pkgFile    string // the same, as a coverage profile names it (import path/file)
	start, end int    // the lines of its declaration
	decl       *ast.FuncDecl
	info       *types.Info
}

func main() {
	from := flag.String("from", "(*github.com/caddy-ark/caddy-ark.Handler).ServeHTTP", "the function to start from, as types.Func.FullName spells it")
	verbose := flag.Bool("v", false, "print every step of the walk")
	executed := flag.String("executed", "", "a coverage profile: follow only the functions it says ran")
	flag.Parse()
	patterns := flag.Args()
	if len(patterns) == 0 {
		patterns = []string{".", "./answer"}
	}
	funcs, err := load(patterns)
	if err != nil {
		fmt.Fprintln(os.Stderr, "crossings:", err)
		os.Exit(1)
	}
	if funcs[*from] == nil {
		fmt.Fprintf(os.Stderr, "crossings: no function %s in %v\n", *from, patterns)
		os.Exit(1)
	}
	if *executed != "" {
		if funcs, err = keepExecuted(funcs, *executed); err != nil {
			fmt.Fprintln(os.Stderr, "crossings:", err)
			os.Exit(1)
		}
	}
	w := walker{funcs: funcs, walked: map[string]bool{}, entered: map[string]int{}, out: io.Discard}
	if *verbose {
		w.out = os.Stdout
	}
	w.enter(funcs[*from].file, false)
	w.walk(*from)
	fmt.Printf("from %s: %d files entered; %d crossings between files: %d calls, %d of them back up (into a file first entered before the caller's), and %d returns\n",
		*from, len(w.entered), w.calls+w.returns, w.calls, w.backUp, w.returns)
}

// walker follows calls from function to function, counting the steps
// between files.
type walker struct {
	funcs   map[string]*function
	walked  map[string]bool
	entered map[string]int // the files entered so far, by the order they were first entered in
	at      string         // the file the walk is in
	calls   int            // calls into another file
	backUp  int            // calls into a file first entered before the caller's
	returns int            // returns to the caller's file
	depth   int
	out     io.Writer
}

// enter moves the walk to file, by a return or a call.
func (w *walker) enter(file string, returning bool) {
	if file == w.at {
		return
	}
	if w.at != "" {
		arrow := "→"
		switch {
		case returning:
			w.returns++
			arrow = "←"
		case w.entered[file] != 0 && w.entered[file] < w.entered[w.at]:
			w.calls++
			w.backUp++
			arrow = "↑"
		default:
			w.calls++
		}
		fmt.Fprintf(w.out, "%s%s %s\n", strings.Repeat("  ", w.depth), arrow, file)
	}
	w.at = file
	if w.entered[file] == 0 {
		w.entered[file] = len(w.entered) + 1
	}
}

// walk walks the function named name, whose file the walk is in.
func (w *walker) walk(name string) {
	w.walked[name] = true
	f := w.funcs[name]
	if f.decl.Body == nil {
		return
	}
	ast.Inspect(f.decl.Body, func(n ast.Node) bool {
		id, ok := n.(*ast.Ident)
		if !ok {
			return true
		}
		fn, ok := f.info.Uses[id].(*types.Func)
		if !ok {
			return true
		}
		callee := fn.Origin().FullName()
		if w.funcs[callee] == nil || w.walked[callee] {
			return true
		}
		w.depth++
		w.enter(w.funcs[callee].file, false)
		w.walk(callee)
		w.enter(f.file, true)
		w.depth--
		return true
	})
}

// load parses and type-checks the packages matched by patterns, and
// returns their functions by full name.
func load(patterns []string) (map[string]*function, error) {
	args := append([]string{"list", "-json", "-export", "-deps"}, patterns...)
	out, err := exec.Command("go", args...).Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %w", err)
	}
	exports := map[string]string{}
	var walked []listed
	for dec := json.NewDecoder(bytes.NewReader(out)); dec.More(); {
		var p listed
		if err := dec.Decode(&p); err != nil {
			return nil, err
		}
		exports[p.ImportPath] = p.Export
		if !p.DepOnly {
			walked = append(walked, p)
		}
	}
	root, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		if exports[path] == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(exports[path])
	})
	funcs := map[string]*function{}
	for _, p := range walked {
		var files []*ast.File
		for _, name := range p.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, 0)
			if err != nil {
				return nil, err
			}
			files = append(files, f)
		}
		info := &types.Info{Uses: map[*ast.Ident]types.Object{}, Defs: map[*ast.Ident]types.Object{}}
		conf := types.Config{Importer: imp}
		if _, err := conf.Check(p.ImportPath, fset, files, info); err != nil {
			return nil, err
		}
		for _, f := range files {
			name := fset.Position(f.Pos()).Filename
			rel, _ := filepath.Rel(root, name)
			pkgFile := p.ImportPath + "/" + filepath.Base(name)
			for _, d := range f.Decls {
				if fd, ok := d.(*ast.FuncDecl); ok {
					funcs[info.Defs[fd.Name].(*types.Func).FullName()] = &function{file: rel, pkgFile: pkgFile,
						start: fset.Position(fd.Pos()).Line, end: fset.Position(fd.End()).Line, decl: fd, info: info}
				}
			}
		}
	}
	return funcs, nil
}

// keepExecuted returns the functions of funcs that the coverage profile
// at path says ran: a block of theirs counted at least once.
func keepExecuted(funcs map[string]*function, path string) (map[string]*function, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	type block struct{ start, end int }
	ran := map[string][]block{}
	for _, line := range strings.Split(string(data), "\n") {
		// github.com/…/answer/answer.go:103.2,105.3 1 1
		file, rest, ok := strings.Cut(line, ":")
		fields := strings.Fields(rest)
		if !ok || len(fields) != 3 || fields[2] == "0" {
			continue
		}
		var b block
		var c1, c2 int
		if _, err := fmt.Sscanf(fields[0], "%d.%d,%d.%d", &b.start, &c1, &b.end, &c2); err != nil {
			return nil, fmt.Errorf("%s: %q: %w", path, line, err)
		}
		ran[file] = append(ran[file], b)
	}
	kept := map[string]*function{}
	for name, f := range funcs {
		for _, b := range ran[f.pkgFile] {
			if b.start >= f.start && b.end <= f.end {
				kept[name] = f
				break
			}
		}
	}
	return kept, nil
}
