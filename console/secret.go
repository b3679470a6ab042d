package console

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"io"
	"sync"

	"github.com/caddy-ark/caddy-ark/internal/osfile"
)

// minSecret is the fewest bytes a configured secret may have.
const minSecret = 32

// processSecret returns the secret of the consoles that are given none:
// random, made once per process, so that a reload keeps everyone signed
// in and a restart signs everyone out.
var processSecret = sync.OnceValue(func() []byte {
	b := make([]byte, 32)
	rand.Read(b)
	return b
})

// readSecret reads a secret file: at least minSecret bytes, white space
// at either end not counted.
func readSecret(name string) ([]byte, error) {
	f, err := osfile.OpenRegular(name)
	if err != nil {
		return nil, fmt.Errorf("api: ui: secret_file %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, 1<<16))
	if err != nil {
		return nil, fmt.Errorf("api: ui: secret_file %s: %w", name, err)
	}
	data = bytes.TrimSpace(data)
	if len(data) < minSecret {
		return nil, fmt.Errorf("api: ui: secret_file %s: %d bytes; a secret has at least %d (head -c 48 /dev/urandom | base64 makes one)", name, len(data), minSecret)
	}
	return data, nil
}
