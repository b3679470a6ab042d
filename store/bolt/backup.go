package bolt

import (
	"context"
	"io"
	"os"
	"path/filepath"

	"github.com/caddy-ark/caddy-ark/store"
	bolt "go.etcd.io/bbolt"
)

// Backup implements store.Backuper with bbolt's Tx.WriteTo: a read
// transaction copies the file, as of its start, into a temporary file
// beside it (so on the same disk, which needs the file's size free). The
// read transaction ends with the copy: a client that reads the backup
// slowly does not keep writers waiting (a write that grows the file waits
// for every read transaction).
func (b *boltDB) Backup(ctx context.Context) (io.ReadCloser, int64, error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	f, err := os.CreateTemp(filepath.Dir(b.db.Path()), "."+filepath.Base(b.db.Path())+".backup-*")
	if err != nil {
		return nil, 0, err
	}
	backup := &tempFile{f}
	var size int64
	err = b.view(func(tx *bolt.Tx) error {
		size = tx.Size()
		_, err := tx.WriteTo(f)
		return err
	})
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err != nil {
		backup.Close()
		return nil, 0, err
	}
	return backup, size, nil
}

// tempFile is a temporary file that closing removes.
type tempFile struct{ *os.File }

// Close closes the file and removes it.
func (t *tempFile) Close() error {
	err := t.File.Close()
	if rerr := os.Remove(t.Name()); err == nil {
		err = rerr
	}
	return err
}

// Interface guard.
var _ store.Backuper = (*Store)(nil)
