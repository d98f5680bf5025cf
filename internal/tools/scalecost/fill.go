package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
	"golang.org/x/sync/errgroup"
)

// What a fill makes, all through fileframe.Store (and Blobs.Put), with
// -workers calls at once so that SQLite's writer commits them in groups
// (each call atomic on its own, as serve's are):
//
//   - accounts on the Agency plan (custom pages), -per-account files each;
//   - files with names of the kinds people share (report-0000042.pdf, …;
//     the kinds the outer page previews only among those whose blob is
//     stored),
//     sizes from 10 KB to 50 MB, one a second going back from now, each
//     naming a blob of its own: the SHA-256 of 4 KiB made from its number.
//     Only the first -blobs of them have that blob stored (4 KiB each);
//     the others' bytes are not there (their rows are what is measured;
//     their downloads would fail);
//   - one file in 200 has a link that ends in 30 days, and one in 200 one
//     that ended yesterday and is to be removed (Link.RemoveWhenEnded), for
//     the collector to remove; their links answer 410 and are left out of
//     the slug lists;
//   - -pages files, spread evenly over all files, with a custom page of
//     -revisions revisions of -html-bytes of HTML each, all different (the
//     first published, the others drafts that keep it live), stored by
//     Store.SavePage without the HTML check;
//   - -orphans blobs that no file names.

// filled is what the fill made and the measurements use.
type filled struct {
	counts        Counts
	slugs         []string // of every file whose link works
	downloadSlugs []string // of those whose blob is stored
	pageFiles     []fileframe.FileID
}

// fileContent is file i's bytes: 4 KiB, different for every i.
func fileContent(i int) []byte {
	b := make([]byte, 4096)
	binary.BigEndian.PutUint64(b, uint64(i))
	copy(b[8:], "fileframe scalecost")
	return b
}

// extensions are what the files are, with their content types; the first
// three only for files whose blob is not stored, the others (which the
// outer page previews, reading their bytes) only for those whose blob is.
var extensions = []struct{ ext, typ string }{
	{"zip", "application/zip"},
	{"docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"},
	{"xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"},
	{"pdf", "application/pdf"}, {"mp4", "video/mp4"}, {"png", "image/png"}, {"jpg", "image/jpeg"},
}

// newFileRow is file i of the fill, before the store gives it an ID and a
// slug.
func newFileRow(i int, acct fileframe.AccountID, withBlob bool, rng *rand.Rand, now time.Time) fileframe.File {
	e := extensions[i%3]
	if withBlob {
		e = extensions[i%len(extensions)]
	}
	sum := sha256.Sum256(fileContent(i))
	f := fileframe.File{
		AccountID:   acct,
		Name:        fmt.Sprintf("%s-%07d.%s", []string{"report", "invoice", "photo", "backup", "draft"}[i%5], i, e.ext),
		Size:        10_000 + rng.Int64N(50_000_000),
		ContentType: e.typ,
		BlobKey:     hex.EncodeToString(sum[:]),
		CreatedAt:   now.Add(-time.Duration(i) * time.Second),
	}
	if withBlob {
		f.Size = 4096
	}
	switch i % 200 {
	case 50:
		f.Link.ExpiresAt = now.Add(30 * 24 * time.Hour)
	case 150:
		f.Link.ExpiresAt = now.Add(-24 * time.Hour)
		f.Link.RemoveWhenEnded = true
	}
	return f
}

// pageHTML is revision rev of file i's page: about size bytes, its own.
func pageHTML(i, rev, size int) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, `<!doctype html><html><head><title>File %d</title><meta name=viewport content="width=device-width"></head><body><h1>Download %d, revision %d</h1>`, i, i, rev)
	for n := 0; b.Len() < size-len("</body></html>"); n++ {
		fmt.Fprintf(&b, "<p>Paragraph %d of the page of file %d: what it is, who sent it and why.</p>\n", n, i)
	}
	b.WriteString("</body></html>")
	return b.Bytes()
}

func fill(ctx context.Context, cfg Config, b *backend) (filled, error) {
	var f filled
	now := time.Now()
	nAccounts := (cfg.Files + cfg.PerAccount - 1) / cfg.PerAccount
	accounts := make([]fileframe.AccountID, nAccounts)
	err := parallel(ctx, cfg.Workers, nAccounts, func(ctx context.Context, i int) error {
		a, err := b.store.CreateAccount(ctx, fileframe.Account{Email: fmt.Sprintf("owner-%d@example.com", i), Plan: fileframe.PlanAgency})
		accounts[i] = a.ID
		return err
	})
	if err != nil {
		return f, fmt.Errorf("accounts: %w", err)
	}
	f.counts.Accounts = nAccounts

	if err := parallel(ctx, cfg.Workers, cfg.Blobs+cfg.Orphans, func(ctx context.Context, i int) error {
		n := i
		if i >= cfg.Blobs {
			n = -1 - i // an orphan: no file has this number
		}
		_, err := b.blobs.Put(ctx, bytes.NewReader(fileContent(n)))
		return err
	}); err != nil {
		return f, fmt.Errorf("blobs: %w", err)
	}
	f.counts.Blobs = cfg.Blobs

	files := make([]fileframe.File, cfg.Files)
	var mu sync.Mutex
	rngs := sync.Pool{New: func() any { return rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64())) }}
	err = parallel(ctx, cfg.Workers, cfg.Files, func(ctx context.Context, i int) error {
		rng := rngs.Get().(*rand.Rand)
		defer rngs.Put(rng)
		row := newFileRow(i, accounts[i/cfg.PerAccount], i < cfg.Blobs, rng, now)
		stored, err := b.store.CreateFile(ctx, row)
		mu.Lock()
		files[i] = stored
		mu.Unlock()
		return err
	})
	if err != nil {
		return f, fmt.Errorf("files: %w", err)
	}
	f.counts.Files = cfg.Files
	for i, file := range files {
		if file.LinkState(now) != fileframe.LinkLive {
			continue
		}
		f.slugs = append(f.slugs, file.Slug)
		if i < cfg.Blobs {
			f.downloadSlugs = append(f.downloadSlugs, file.Slug)
		}
	}

	// Pages on every step-th file, revision by revision, so that a page's
	// revisions are never written at once.
	step := 1
	if cfg.Pages > 0 {
		step = cfg.Files / cfg.Pages
	}
	f.pageFiles = make([]fileframe.FileID, cfg.Pages)
	for p := range cfg.Pages {
		f.pageFiles[p] = files[p*step].ID
	}
	for rev := 1; rev <= cfg.Revisions; rev++ {
		err := parallel(ctx, cfg.Workers, cfg.Pages, func(ctx context.Context, p int) error {
			_, err := b.store.SavePage(ctx, fileframe.PageWrite{FileID: f.pageFiles[p], HTML: pageHTML(p*step, rev, cfg.HTMLBytes),
				Publish: rev == 1, KeepLive: rev > 1, At: now})
			return err
		})
		if err != nil {
			return f, fmt.Errorf("pages, revision %d: %w", rev, err)
		}
	}
	f.counts.Pages = cfg.Pages
	if cfg.Pages > 0 {
		f.counts.Revisions = cfg.Pages * cfg.Revisions
	}
	return f, nil
}

// parallel calls fn(ctx, i) for every i below n, on workers goroutines,
// and returns the first error.
func parallel(ctx context.Context, workers, n int, fn func(context.Context, int) error) error {
	g, ctx := errgroup.WithContext(ctx)
	next := make(chan int)
	g.Go(func() error {
		defer close(next)
		for i := range n {
			select {
			case next <- i:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		return nil
	})
	for range max(workers, 1) {
		g.Go(func() error {
			for i := range next {
				if err := fn(ctx, i); err != nil {
					return fmt.Errorf("%d: %w", i, err)
				}
			}
			return nil
		})
	}
	return g.Wait()
}

// sample returns k of xs picked at random (with repeats).
func sample[T any](rng *rand.Rand, xs []T, k int) []T {
	out := make([]T, k)
	for i := range out {
		out[i] = xs[rng.IntN(len(xs))]
	}
	return out
}
