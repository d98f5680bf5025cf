package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/fileframe/fileframe/internal/blob/s3"
	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/postgres"
	"github.com/fileframe/fileframe/internal/web"
	tusd "github.com/tus/tusd/v2/pkg/handler"
	"github.com/tus/tusd/v2/pkg/s3store"
)

// Quotas are the upload limits of the three plans (--quota-*).
type Quotas struct {
	Free, Pro, Agency fileframe.Quota
}

// defaultQuotas are serve's quotas when no flag says otherwise.
var defaultQuotas = Quotas{
	Free:   fileframe.Quota{Storage: 5 << 30, File: 1 << 30, Files: 1_000},
	Pro:    fileframe.Quota{Storage: 100 << 30, File: 10 << 30, Files: 10_000},
	Agency: fileframe.Quota{Storage: 1 << 40, File: 50 << 30, Files: 100_000},
}

// byPlan returns the quotas by plan, as web.Config and service.Config
// want them.
func (q Quotas) byPlan() map[fileframe.Plan]fileframe.Quota {
	return map[fileframe.Plan]fileframe.Quota{fileframe.PlanFree: q.Free, fileframe.PlanPro: q.Pro, fileframe.PlanAgency: q.Agency}
}

// quotaFlags binds --quota-<plan>-storage, --quota-<plan>-file and
// --quota-<plan>-files to q and returns the variable of each.
func quotaFlags(fs *flag.FlagSet, q *Quotas) map[string]string {
	*q = defaultQuotas
	vars := map[string]string{}
	for _, p := range []struct {
		name  string
		quota *fileframe.Quota
	}{{"free", &q.Free}, {"pro", &q.Pro}, {"agency", &q.Agency}} {
		for _, f := range []struct {
			kind, usage string
			v           *int64
		}{
			{"storage", "bytes all files, appearance images and kept copies of page images of a %s account may take (a `size`: 5GiB, 500MB, 0 for unlimited)", &p.quota.Storage},
			{"file", "largest file a %s account may upload (a `size`: 1GiB, 0 for unlimited)", &p.quota.File},
		} {
			name := "quota-" + p.name + "-" + f.kind
			fs.Var(byteSize{f.v}, name, fmt.Sprintf(f.usage, p.name))
			vars[name] = "FILEFRAME_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
		}
		name := "quota-" + p.name + "-files"
		fs.Var(fileCount{&p.quota.Files}, name, fmt.Sprintf("most files a %s account may keep (a `count`, 0 for unlimited)", p.name))
		vars[name] = "FILEFRAME_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
		for _, f := range []struct {
			kind, usage string
			v           *time.Duration
		}{
			{"expiry", "how long a new link of a %s account lives when its owner does not say (a `duration`: 7d, 36h; 0 for until the owner ends it)", &p.quota.DefaultExpiry},
			{"max-expiry", "the longest a %s account's links may live (a `duration`: 30d; 0 for no limit)", &p.quota.MaxExpiry},
		} {
			name := "quota-" + p.name + "-" + f.kind
			fs.Var(lifetime{f.v}, name, fmt.Sprintf(f.usage, p.name))
			vars[name] = "FILEFRAME_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
		}
	}
	return vars
}

// lifetime is a flag of a link's lifetime: a duration like 30d, 36h or
// 90m, or 0 for none.
type lifetime struct{ d *time.Duration }

func (l lifetime) String() string {
	if l.d == nil || *l.d == 0 {
		return "0"
	}
	if *l.d%(24*time.Hour) == 0 {
		return fmt.Sprintf("%dd", *l.d/(24*time.Hour))
	}
	return l.d.String()
}

func (l lifetime) Set(s string) error {
	if s == "0" {
		*l.d = 0
		return nil
	}
	d, err := parseLifetime(s)
	if err != nil {
		return errors.New("not a duration like 30d, 36h or 90m, or 0 for none")
	}
	*l.d = d
	return nil
}

// byteSize is a flag of a size in bytes, written as humans do (5GiB, 1.5 GB,
// 100MiB, 0).
type byteSize struct{ n *int64 }

func (b byteSize) String() string {
	if b.n == nil || *b.n == 0 {
		return "0"
	}
	return strings.ReplaceAll(humanize.IBytes(uint64(*b.n)), " ", "")
}

func (b byteSize) Set(s string) error {
	n, err := humanize.ParseBytes(s)
	if err != nil {
		return errors.New("not a size, like 5GiB, 500MB or 0")
	}
	if n > math.MaxInt64 {
		return errors.New("too large")
	}
	*b.n = int64(n)
	return nil
}

// fileCount is a flag of a number of files: 0 or more, written with or
// without thousands separators (100000, 100_000, 100,000).
type fileCount struct{ n *int64 }

func (c fileCount) String() string {
	if c.n == nil {
		return "0"
	}
	return strconv.FormatInt(*c.n, 10)
}

func (c fileCount) Set(s string) error {
	n, err := strconv.ParseInt(strings.NewReplacer("_", "", ",", "").Replace(strings.TrimSpace(s)), 10, 64)
	if err != nil || n < 0 {
		return errors.New("not a count of files, like 1000 or 0")
	}
	*c.n = n
	return nil
}

// staleUploadAge is how long an unfinished resumable upload may sit unused
// before serve removes it.
const staleUploadAge = 24 * time.Hour

// uploadStorage is where serve keeps unfinished resumable uploads, and how
// it locks them.
type uploadStorage struct {
	// store is tusd's s3store in the blob bucket (S3), or nil, and then dir
	// holds a filestore (<data>/uploads).
	store web.TusStore
	dir   string
	// locker is shared through PostgreSQL, or nil (in memory).
	locker *postgres.TusLocker
	// clean removes unfinished uploads older than its argument.
	clean func(ctx context.Context, olderThan time.Duration) (int, error)
	// storeError gives store's errors their code (web.Config.TusStoreError);
	// nil for a filestore.
	storeError func(error) error
}

// openUploads returns where unfinished uploads go: with S3 in the blob
// bucket under uploads/, so that any instance can resume any upload; on
// disk in <data>/uploads. With PostgreSQL their locks are shared by every
// instance on the database.
func openUploads(ctx context.Context, st Storage, store appStore, blobs fileframe.Blobs, log *slog.Logger) (uploadStorage, error) {
	var u uploadStorage
	if b, ok := blobs.(*s3.Store); ok {
		s := s3store.New(b.Bucket(), b.Client())
		s.ObjectPrefix = b.UploadsPrefix()
		u.store, u.clean = s, b.CleanUploads
		u.storeError = func(err error) error { return s3.WrapError("tus upload", err) }
	} else {
		u.dir = filepath.Join(st.Data, "uploads")
		u.clean = func(_ context.Context, olderThan time.Duration) (int, error) {
			return cleanUploadDir(u.dir, time.Now().Add(-olderThan))
		}
	}
	if pg, ok := store.(*postgres.Store); ok {
		l, err := pg.TusLocker(ctx, log)
		if err != nil {
			return u, err
		}
		u.locker = l
	}
	return u, nil
}

// tusLocker returns the locker for web.Config: nil (in memory) when there
// is none to share.
func (u uploadStorage) tusLocker() tusd.Locker {
	if u.locker == nil {
		return nil
	}
	return u.locker
}

// close releases the locker.
func (u uploadStorage) close() error {
	if u.locker == nil {
		return nil
	}
	return u.locker.Close()
}

// cleanUploadDir removes the uploads of a tusd filestore in dir (ID.info
// and the data file ID) that were last written before cutoff, and returns
// how many.
func cleanUploadDir(dir string, cutoff time.Time) (int, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	} else if err != nil {
		return 0, err
	}
	removed := 0
	var errs []error
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".info")
		if !ok || e.IsDir() {
			continue
		}
		info, data := filepath.Join(dir, e.Name()), filepath.Join(dir, id)
		if recent(info, cutoff) || recent(data, cutoff) {
			continue
		}
		for _, p := range []string{data, info} {
			if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, err)
			}
		}
		removed++
	}
	return removed, errors.Join(errs...)
}

// recent reports whether the file at p was modified after cutoff.
func recent(p string, cutoff time.Time) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.ModTime().After(cutoff)
}
