package oai

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"strings"
	"time"
)

// tokenLife is how long a resumption token is honoured: a cursor costs
// the server nothing to keep, so only a harvest abandoned for days ends.
const tokenLife = 7 * 24 * time.Hour

// cursor is where a list goes on: what a resumption token encodes. It
// names the list (verb, format, set, window) and a position in the
// store's history and then in the table, never records held aside.
type cursor struct {
	Verb    string `json:"v"`
	Prefix  string `json:"p"`
	Set     string `json:"s,omitempty"`
	From    int64  `json:"f,omitempty"` // Unix seconds, with HasFrom
	HasFrom bool   `json:"h,omitempty"`
	Until   int64  `json:"u"`           // Unix seconds
	Seq     uint64 `json:"q,omitempty"` // the last history record taken
	InTable bool   `json:"t,omitempty"` // the store is done
	Pos     int    `json:"i,omitempty"` // the next table position
	Size    int    `json:"n"`           // completeListSize, -1 unknown
	Done    int    `json:"c"`           // records listed before this page
	Expires int64  `json:"e"`           // Unix seconds
}

func (c *cursor) window() window {
	return window{from: time.Unix(c.From, 0).UTC(), hasFrom: c.HasFrom, until: time.Unix(c.Until, 0).UTC()}
}

// maxCursor bounds the counts a token holds (records listed before,
// table position): far above any repository's size, far below int's
// overflow.
const maxCursor = 1 << 40

// encode is c as a resumption token signed with key: its JSON, a ".",
// and the JSON's HMAC-SHA256 under key, each base64url.
func (c *cursor) encode(key []byte) string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b) + "." + base64.RawURLEncoding.EncodeToString(sign(key, b))
}

// sign is the HMAC-SHA256 of b under key.
func sign(key, b []byte) []byte {
	mac := hmac.New(sha256.New, key)
	mac.Write(b)
	return mac.Sum(nil)
}

// decodeToken reads a resumption token of verb, checking that key signed
// it and that it has not expired at now. A token altered in any way
// (its expiry, its window, its position) is a badResumptionToken.
func decodeToken(token, verb string, now time.Time, key []byte) (*cursor, *protocolError) {
	bad := &protocolError{codeBadResumptionToken, "the resumption token is not one this repository issued for " + verb}
	payload, signature, ok := strings.Cut(token, ".")
	if !ok {
		return nil, bad
	}
	b, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil {
		return nil, bad
	}
	mac, err := base64.RawURLEncoding.DecodeString(signature)
	if err != nil || !hmac.Equal(mac, sign(key, b)) {
		return nil, bad
	}
	var c cursor
	if err := json.Unmarshal(b, &c); err != nil || c.Verb != verb || c.Done < 0 || c.Done > maxCursor || c.Pos < 0 || c.Pos > maxCursor || c.Size < -1 || c.Size > maxCursor {
		return nil, bad
	}
	if _, ok := formats[c.Prefix]; !ok {
		return nil, bad
	}
	if c.Set != "" {
		if _, ok := parseSet(c.Set); !ok {
			return nil, bad
		}
	}
	if now.Unix() > c.Expires {
		return nil, &protocolError{codeBadResumptionToken, "the resumption token has expired: start the list again"}
	}
	return &c, nil
}
