package ezid

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"strings"
)

// The purposes of what the server signs: a value signed for one is never
// taken for another (a session cookie is not a download link).
const (
	purposeSession  = "ezid session\x00"
	purposeDownload = "ezid download\x00"
)

// seal returns v, in JSON, and its HMAC-SHA256 under key for purpose:
// "<base64url of the JSON>.<base64url of the MAC>", which fits a cookie's
// value and a URL's segment. Anyone may read it; only a holder of key can
// make one that open takes.
func seal(key []byte, purpose string, v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	payload := base64.RawURLEncoding.EncodeToString(b)
	return payload + "." + base64.RawURLEncoding.EncodeToString(mac(key, purpose, payload)), nil
}

// open reads into v what seal made under key for purpose; false when
// token is not that.
func open(key []byte, purpose, token string, v any) bool {
	payload, sum, ok := strings.Cut(token, ".")
	if !ok {
		return false
	}
	got, err := base64.RawURLEncoding.DecodeString(sum)
	if err != nil || !hmac.Equal(got, mac(key, purpose, payload)) {
		return false
	}
	b, err := base64.RawURLEncoding.DecodeString(payload)
	return err == nil && json.Unmarshal(b, v) == nil
}

func mac(key []byte, purpose, payload string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(purpose))
	h.Write([]byte(payload))
	return h.Sum(nil)
}
