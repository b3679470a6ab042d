package importer

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
)

// An nginx import reads the map blocks of an nginx configuration,
//
//	map $uri $ark_target {
//		default "";
//		/ark:/12345/x5wf6789 /objects/x5wf6789.html;
//	}
//
// wherever they are (the whole nginx.conf may be given); everything else is
// left alone. Each "key value;" line is an entry. A file of such lines
// alone, as a map block includes them (include arks.map;), is read as the
// inside of a map block: it is one when its first statement is a map line
// (see mapLine).

// nginxMapStart finds the start of a map block, for format detection.
var nginxMapStart = regexp.MustCompile(`(?m)(^|[\s;{}])map\s+\S+\s+\S+\s*\{`)

// nginxToken is a word of an nginx configuration, or one of ";", "{", "}"
// (punct is then that byte; 0 for a word).
type nginxToken struct {
	text   string
	line   int
	punct  byte
	quoted bool
}

// nginxLexer splits an nginx configuration into tokens, streaming.
type nginxLexer struct {
	br   *bufio.Reader
	line int
}

// next returns the next token, or io.EOF at the end.
func (lx *nginxLexer) next() (nginxToken, error) {
	for {
		c, err := lx.br.ReadByte()
		if err != nil {
			return nginxToken{}, err
		}
		switch c {
		case '\n':
			lx.line++
		case ' ', '\t', '\r':
		case '#':
			if _, err := lx.br.ReadString('\n'); err != nil {
				return nginxToken{}, err
			}
			lx.line++
		case ';', '{', '}':
			return nginxToken{text: string(c), line: lx.line, punct: c}, nil
		case '"', '\'':
			tok, err := lx.quoted(c)
			tok.quoted = true
			return tok, err
		default:
			lx.br.UnreadByte()
			return lx.word()
		}
	}
}

// quoted reads a string in quotes, the opening one already read.
func (lx *nginxLexer) quoted(q byte) (nginxToken, error) {
	tok := nginxToken{line: lx.line}
	var b strings.Builder
	for {
		c, err := lx.br.ReadByte()
		switch {
		case errors.Is(err, io.EOF):
			return tok, fmt.Errorf("line %d: a quoted string is not closed", tok.line)
		case err != nil:
			return tok, err
		case c == q:
			tok.text = b.String()
			return tok, nil
		case c == '\n':
			lx.line++
		case c == '\\':
			next, err := lx.br.ReadByte()
			if err != nil {
				continue
			}
			if next == '\n' {
				lx.line++
			}
			c = unescape(&b, next)
		}
		if b.Len() >= MaxLineBytes {
			return tok, fmt.Errorf("line %d: a quoted string longer than %d bytes", tok.line, MaxLineBytes)
		}
		b.WriteByte(c)
	}
}

// unescape reads the escape of a backslash followed by next, as nginx
// does in words and quoted strings: \" \' and \\ stand for the character,
// \t \r \n for a tab, CR and LF; before any other byte the backslash is
// kept (written to b). It returns the byte to write.
func unescape(b *strings.Builder, next byte) byte {
	switch next {
	case '"', '\'', '\\':
	case 't':
		next = '\t'
	case 'r':
		next = '\r'
	case 'n':
		next = '\n'
	default:
		b.WriteByte('\\')
	}
	return next
}

// word reads a word up to white space, ";", "{" or "}".
func (lx *nginxLexer) word() (nginxToken, error) {
	tok := nginxToken{line: lx.line}
	var b strings.Builder
	for {
		c, err := lx.br.ReadByte()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return tok, err
		}
		if strings.IndexByte(" \t\r\n;{}", c) >= 0 {
			lx.br.UnreadByte()
			break
		}
		if c == '\\' {
			// The next byte is part of the word, whatever it is.
			next, err := lx.br.ReadByte()
			if err != nil && !errors.Is(err, io.EOF) {
				return tok, err
			}
			if err == nil {
				if next == '\n' {
					lx.line++
				}
				c = unescape(&b, next)
			}
		}
		if b.Len() >= MaxLineBytes {
			return tok, fmt.Errorf("line %d: a word longer than %d bytes", tok.line, MaxLineBytes)
		}
		b.WriteByte(c)
	}
	tok.text = b.String()
	return tok, nil
}

// readNginxMaps imports every map block of an nginx configuration, or a
// file of map lines.
func readNginxMaps(r io.Reader, row func(sourceRow)) error {
	lx := &nginxLexer{br: bufio.NewReader(r), line: 1}
	maps, depth := 0, 0
	var stmt []nginxToken
	var lines *bool // whether the file is map lines; nil until its first statement says
	for {
		tok, err := lx.next()
		if errors.Is(err, io.EOF) {
			switch {
			case depth > 0 || len(stmt) > 0:
				return fmt.Errorf("line %d: the configuration ends inside a block or a statement", lx.line)
			case maps == 0 && (lines == nil || !*lines):
				return errors.New(`no map block found: expected "map $var $out { key value; ... }", or a file of "key value;" lines as a map block includes`)
			}
			return nil
		}
		if err != nil {
			return err
		}
		if lines == nil && tok.punct != 0 && len(stmt) > 0 {
			isLines := tok.punct == ';' && depth == 0 && mapLine(stmt)
			lines = &isLines
		}
		switch {
		case lines != nil && *lines && tok.punct == ';':
			row(nginxMapRow(stmt))
			stmt = nil
		case lines != nil && *lines && tok.punct != 0:
			return fmt.Errorf("line %d: %q in a file of map lines (its first line is one): expected \"key value;\" lines", tok.line, tok.text)
		case tok.punct == '{':
			if len(stmt) > 0 && stmt[0].text == "map" {
				if len(stmt) != 3 {
					return fmt.Errorf("line %d: map takes two variables: map $var $out { ... }", stmt[0].line)
				}
				if err := readNginxMap(lx, row); err != nil {
					return err
				}
				maps++
			} else {
				depth++
			}
			stmt = nil
		case tok.punct == '}':
			if depth--; depth < 0 {
				return fmt.Errorf("line %d: a \"}\" closes no block", tok.line)
			}
			stmt = nil
		case tok.punct == ';':
			stmt = nil
		default:
			stmt = append(stmt, tok)
		}
	}
}

// mapLine reports whether the first statement of a file makes it a file
// of map lines: its key is an identifier, a resolver's URL or a path, in
// quotes, a regular expression (~) or escaped (\), or it is one of the
// parameters of a map block. No directive of an nginx configuration is
// written so; include is read as a configuration's.
func mapLine(stmt []nginxToken) bool {
	key := stmt[0]
	switch {
	case key.quoted || looksLikeID(key.text) || strings.HasPrefix(key.text, "~") || strings.HasPrefix(key.text, `\`):
		return true
	case len(stmt) == 1:
		return key.text == "hostnames" || key.text == "volatile"
	}
	return key.text == "default" && len(stmt) == 2
}

// readNginxMap reads the inside of one map block, up to its "}".
func readNginxMap(lx *nginxLexer, row func(sourceRow)) error {
	var stmt []nginxToken
	for {
		tok, err := lx.next()
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("line %d: the map block is not closed", lx.line)
		}
		if err != nil {
			return err
		}
		switch tok.punct {
		case '}':
			if len(stmt) > 0 {
				return fmt.Errorf("line %d: %q has no \";\" before the end of the map block", stmt[0].line, stmt[0].text)
			}
			return nil
		case '{':
			return fmt.Errorf("line %d: a block inside a map block", tok.line)
		case ';':
			if len(stmt) > 0 {
				row(nginxMapRow(stmt))
			}
			stmt = nil
		default:
			stmt = append(stmt, tok)
		}
	}
}

// nginxMapRow makes the import row of one "key value;" line of a map.
func nginxMapRow(stmt []nginxToken) sourceRow {
	line := stmt[0].line
	key := stmt[0].text
	switch {
	case len(stmt) == 1 && (key == "hostnames" || key == "volatile"):
		return sourceRow{line: line, note: key + ": ignored (it is about nginx's matching)"}
	case key == "default" && len(stmt) == 2:
		return sourceRow{line: line, note: "default: ignored: a table has no default; identifiers it does not hold get 404, or go to the foreign resolver"}
	case key == "include":
		return sourceRow{line: line, err: errors.New(`include: not followed; import the included file on its own, with --format nginx (a file of "key value;" lines is read as the inside of a map block), and load both tables`)}
	case len(stmt) != 2:
		return sourceRow{line: line, err: fmt.Errorf("%s: expected \"key value;\"", count(len(stmt), "word"))}
	case strings.HasPrefix(key, "~"):
		return sourceRow{line: line, err: fmt.Errorf("the regular expression key %q cannot be imported: a table holds exact identifiers (a shoulder template can stand for a pattern: see shoulder in docs/tables.md)", key)}
	case strings.Contains(stmt[1].text, "$"):
		return sourceRow{line: line, err: fmt.Errorf("the value %q uses nginx variables, which a table cannot hold", stmt[1].text)}
	}
	return sourceRow{line: line, id: strings.TrimPrefix(key, `\`), target: stmt[1].text}
}
