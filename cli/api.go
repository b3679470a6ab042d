package cli

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/caddy-ark/caddy-ark/api"
	"github.com/caddy-ark/caddy-ark/store"
)

// apiKeyEnv is the environment variable the API commands take their key
// from, so that it stays out of the shell history and ps.
const apiKeyEnv = "ARK_API_KEY"

// apiClient calls the management API for the caddy ark commands.
type apiClient struct {
	base   string // the API's URL: scheme, host and prefix
	key    string
	client *http.Client
}

// newAPIClient checks base and key and returns a client for them.
func newAPIClient(base, key string, client *http.Client) (*apiClient, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("--api %q: give the API's URL, such as https://example.org/api/ark", base)
	}
	if key == "" {
		return nil, fmt.Errorf("no key: set %s to the API key", apiKeyEnv)
	}
	return &apiClient{base: strings.TrimSuffix(base, "/"), key: key, client: client}, nil
}

// call sends one request; out, if not nil, receives the JSON answer of a
// success: decoded into it, copied to it (an io.Writer), or read by it (a
// func(io.Reader) error, or a func(*http.Response) error for its header
// too). A refusal is returned as an error with its status and reason.
func (c *apiClient) call(ctx context.Context, method, path string, body any, out any) error {
	var in io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return err
		}
		in = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, in)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		var refusal api.Refusal
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		if json.Unmarshal(data, &refusal) == nil && refusal.Error != "" {
			return fmt.Errorf("%s: %s", resp.Status, terminalSafe(refusal.Error))
		}
		return notTheAPI(method, req.URL, resp.Status, resp.StatusCode, data)
	}
	if read, ok := out.(func(io.Reader) error); ok {
		return read(resp.Body)
	}
	if read, ok := out.(func(*http.Response) error); ok {
		return read(resp)
	}
	if w, ok := out.(io.Writer); ok {
		_, err = io.Copy(w, resp.Body)
		return err
	}
	if out != nil {
		return json.NewDecoder(resp.Body).Decode(out)
	}
	return nil
}

// idPath is the API path of id: escaped as little as a path needs.
func idPath(route, id string) string {
	return "/" + route + "/" + (&url.URL{Path: id}).EscapedPath()
}

// mintIDs mints n names under shoulder, bound to target when it is not
// empty, and writes them to w, one a line.
func (c *apiClient) mintIDs(ctx context.Context, shoulder string, n int, bind *api.BindRequest, w io.Writer) error {
	var out api.MintResult
	var body any
	if bind != nil {
		body = bind
	}
	if err := c.call(ctx, http.MethodPost, idPath("mint", shoulder)+"?n="+strconv.Itoa(n), body, &out); err != nil {
		return err
	}
	for _, id := range out.IDs {
		fmt.Fprintln(w, id)
	}
	return nil
}

// bindID creates or updates the binding of id with a merge patch, which
// keeps what it does not name, and writes the binding as stored.
func (c *apiClient) bindID(ctx context.Context, id string, patch *api.BindPatch, w io.Writer) error {
	var b store.Binding
	if err := c.call(ctx, http.MethodPatch, idPath("id", id), patch, &b); err != nil {
		return err
	}
	fmt.Fprintf(w, "%s %d %s (version %d)\n", b.Key, b.Status, b.Target, b.Version)
	return nil
}

// withdrawID withdraws id for reason.
func (c *apiClient) withdrawID(ctx context.Context, id, reason string, w io.Writer) error {
	var b store.Binding
	if err := c.call(ctx, http.MethodPost, idPath("withdraw", id), api.WithdrawRequest{Reason: reason}, &b); err != nil {
		return err
	}
	fmt.Fprintf(w, "%s 410 withdrawn: %s (version %d)\n", b.Key, b.Reason, b.Version)
	return nil
}

// exportTable writes the store as a table file to w, as it arrives. An
// answer cut short (the server aborts it when its store fails midway) or
// that is not one whole JSON value is an error: what was written to w is
// then not a table.
func (c *apiClient) exportTable(ctx context.Context, w io.Writer) error {
	return c.call(ctx, http.MethodGet, "/export", nil, func(body io.Reader) error {
		if err := checkJSONStream(io.TeeReader(body, w)); err != nil {
			return fmt.Errorf("the export is incomplete, not a table: %w", err)
		}
		return nil
	})
}

// checkJSONStream reads r to its end and checks that it holds one whole
// JSON value, without holding it in memory.
func checkJSONStream(r io.Reader) error {
	dec := json.NewDecoder(r)
	depth, values := 0, 0
	for {
		tok, err := dec.Token()
		switch {
		case err == io.EOF && depth == 0 && values == 1:
			return nil
		case err == io.EOF, errors.Is(err, io.ErrUnexpectedEOF):
			return errors.New("cut short")
		case err != nil:
			var syntax *json.SyntaxError
			if errors.As(err, &syntax) {
				return fmt.Errorf("not one JSON value: %s at byte %d", terminalSafe(syntax.Error()), syntax.Offset)
			}
			return fmt.Errorf("cut short: %s", terminalSafe(err.Error()))
		}
		if values == 1 && depth == 0 {
			return errors.New("not one JSON value: more follows it")
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			values++
		}
	}
}

// hashKey returns the SHA-256 hash of a key, as the api configuration
// takes it.
func hashKey(key string) (string, error) {
	key = strings.TrimSpace(key)
	if key == "" {
		return "", errors.New("the key is empty")
	}
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:]), nil
}

// newKey returns a new random key, of 128 bits.
func newKey() string { return rand.Text() }

// notTheAPI is the error for an answer that is not one of the API's
// refusals (which are JSON with an error): what was asked, what answered,
// and, for a 4xx such as a 404, that --api likely does not name the API's
// prefix.
func notTheAPI(method string, u *url.URL, status string, code int, body []byte) error {
	msg := fmt.Sprintf("%s: %s %s", status, method, u.Redacted())
	if first, _, _ := strings.Cut(strings.TrimSpace(string(body)), "\n"); first != "" {
		if r := []rune(first); len(r) > 200 {
			first = string(r[:200]) + "…"
		}
		msg += " answered " + strconv.Quote(terminalSafe(first))
	} else {
		msg += " answered with nothing"
	}
	if code >= 400 && code < 500 {
		msg += ": not an answer of the ark API; --api should be the site's address and the api directive's prefix, such as https://example.org/api/ark"
	}
	return errors.New(msg)
}
