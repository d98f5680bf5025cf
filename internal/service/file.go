package service

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// OwnFile returns the account's file with that ID. Another account's file
// is not found, exactly like a missing one, so that IDs of other accounts'
// files cannot be told from unknown ones.
func (s *Service) OwnFile(ctx context.Context, a fileframe.Account, id fileframe.FileID) (fileframe.File, error) {
	f, err := s.store.FileByID(ctx, id)
	if fileframe.IsNotFound(err) || (err == nil && f.AccountID != a.ID) {
		return fileframe.File{}, fileNotFound(id)
	}
	return f, err
}

// RenameFile changes the name visitors download one of the account's files
// under (trimmed; fileframe.CheckFileName's rules). The link stays.
func (s *Service) RenameFile(ctx context.Context, a fileframe.Account, id fileframe.FileID, name string) error {
	f, err := s.OwnFile(ctx, a, id)
	if err != nil {
		return err
	}
	if err := checkName(strings.TrimSpace(name)); err != nil {
		return err
	}
	if err := s.store.RenameFile(ctx, f.ID, strings.TrimSpace(name)); err != nil {
		return err
	}
	s.changed()
	return nil
}

// DeleteFile deletes one of the account's files with its page, revisions,
// appearance and page-bound keys: its link answers 404 at once. Its bytes
// are removed unless another file has the same content or they were stored
// within fileframe.BlobGrace; a blob left behind is an orphan that the
// periodic collector removes, so that failure is reported as a warning, not
// an error (the file is gone either way).
func (s *Service) DeleteFile(ctx context.Context, a fileframe.Account, id fileframe.FileID) (deleted fileframe.File, blobErr, err error) {
	if s.blobs == nil {
		return fileframe.File{}, nil, errors.New("service: deleting a file needs Config.Blobs")
	}
	f, err := s.OwnFile(ctx, a, id)
	if err != nil {
		return fileframe.File{}, nil, err
	}
	if deleted, err = s.store.DeleteFile(ctx, f.ID); err != nil {
		return fileframe.File{}, nil, err
	}
	s.changed()
	if err := s.removeBlobWhenSafe(ctx, deleted.BlobKey); err != nil {
		blobErr = fmt.Errorf("removing the blob of deleted file %s: %w", f.ID, err)
	}
	return deleted, blobErr, nil
}

// removeBlobWhenSafe removes a deleted file's blob now when no row uses it
// and it is BlobGrace old (fileframe.RemoveBlobIfUnused); a younger one,
// which an upload of the same bytes may be about to use, is removed as
// soon as it is BlobGrace old, by a timer of this process, so that
// deleting files on a full disk frees their room within a minute rather
// than at the next clean-up (which still collects it should this process
// stop first).
func (s *Service) removeBlobWhenSafe(ctx context.Context, key string) error {
	removed, err := fileframe.RemoveBlobIfUnused(ctx, s.store, s.blobs, key, s.now())
	if removed || err != nil {
		return err
	}
	info, err := s.blobs.Stat(ctx, key)
	if err != nil {
		return nil // gone already, or the clean-up's to find
	}
	wait := fileframe.BlobGrace - s.now().Sub(info.ModTime)
	if wait <= 0 {
		return nil // old enough: kept because a row uses it
	}
	time.AfterFunc(wait+time.Second, func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		fileframe.RemoveBlobIfUnused(ctx, s.store, s.blobs, key, s.now())
	})
	return nil
}

// ListFiles returns one page of the account's files, newest first, after
// the cursor when it is set (fileframe.FileQuery).
func (s *Service) ListFiles(ctx context.Context, a fileframe.Account, after *fileframe.FileCursor, limit int) ([]fileframe.FileListing, error) {
	return s.store.ListFiles(ctx, fileframe.FileQuery{Account: a.ID, After: after, Limit: limit})
}
