package main

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// fence is one fenced code block of a Markdown file.
type fence struct {
	file string
	lang string // the info string's first word
	line int    // the line of the opening fence
	body string // the block's text, without the fence's indentation
}

// docFiles are README.md and every Markdown file under docs/ of the
// checkout at repo, as the checkout's own sample tests read them.
func docFiles(repo string) ([]string, error) {
	files := []string{"README.md"}
	err := filepath.WalkDir(filepath.Join(repo, "docs"), func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
			rel, _ := filepath.Rel(repo, path)
			files = append(files, filepath.ToSlash(rel))
		}
		return err
	})
	return files, err
}

// fences returns every fenced code block of the Markdown file at
// repo/file.
func fences(repo, file string) ([]fence, error) {
	f, err := os.Open(filepath.Join(repo, file))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []fence
	var cur *fence
	indent := ""
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimLeft(line, " ")
		switch {
		case cur == nil && strings.HasPrefix(trimmed, "```"):
			indent = line[:len(line)-len(trimmed)]
			lang, _, _ := strings.Cut(strings.TrimSpace(strings.TrimPrefix(trimmed, "```")), " ")
			cur = &fence{file: file, lang: lang, line: n}
		case cur != nil && trimmed == "```":
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.body += strings.TrimPrefix(line, indent) + "\n"
		}
	}
	return out, sc.Err()
}

// allFences returns the fenced blocks of README.md and docs/ at repo.
func allFences(repo string) ([]fence, error) {
	files, err := docFiles(repo)
	if err != nil {
		return nil, err
	}
	var out []fence
	for _, file := range files {
		fs, err := fences(repo, file)
		if err != nil {
			return nil, err
		}
		out = append(out, fs...)
	}
	return out, nil
}
