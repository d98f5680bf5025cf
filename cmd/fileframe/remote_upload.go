package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/fileframe/fileframe/internal/client"
	"github.com/schollz/progressbar/v3"
)

// uploadState is what remote upload keeps of an unfinished upload, so that
// the same command run again resumes it: one file per (server, absolute
// path, size, modification time) in uploadStateDir. A resume also needs
// the same change stamp (changeStamp: the file was not written since,
// even if its modification time was set back) and the same sample of its
// content (contentSample): resuming a changed file would store a mix of
// the old bytes and the new.
type uploadState struct {
	UploadURL string    `json:"uploadUrl"`
	Server    string    `json:"server"`
	Path      string    `json:"path"`
	Size      int64     `json:"size"`
	ModTime   time.Time `json:"modTime"`
	Change    string    `json:"change"`
	Sample    string    `json:"sample"`
	Created   time.Time `json:"created"`
}

// contentSample hashes the first and the last 64 KiB of f (all of a
// smaller file).
func contentSample(f *os.File, size int64) (string, error) {
	const n = 64 << 10
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(f, 0, min(size, n))); err != nil {
		return "", err
	}
	if size > n {
		if _, err := io.Copy(h, io.NewSectionReader(f, max(size-n, n), min(n, size-n))); err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// uploadStateDir is where remote upload keeps its state files:
// os.UserCacheDir()/fileframe/uploads (CLI.CacheDir replaces the cache
// directory).
func (c *CLI) uploadStateDir() (string, error) {
	dir := c.CacheDir
	if dir == "" {
		var err error
		if dir, err = os.UserCacheDir(); err != nil {
			return "", fmt.Errorf("no cache directory to keep the upload's state in: %w", err)
		}
	}
	return filepath.Join(dir, "fileframe", "uploads"), nil
}

// uploadStatePath is the state file of one upload of a file: the file
// changes (size or modification time) or another server gets another one.
func uploadStatePath(dir, server, abs string, size int64, mod time.Time) string {
	h := sha256.Sum256([]byte(server + "\x00" + abs + "\x00" + strconv.FormatInt(size, 10) + "\x00" + strconv.FormatInt(mod.UnixNano(), 10)))
	return filepath.Join(dir, hex.EncodeToString(h[:16])+".json")
}

// readUploadState returns the upload URL kept in the state file at p, or ""
// when there is none (a state file that cannot be read is ignored: the
// upload starts anew).
func readUploadState(p string, want uploadState) string {
	b, err := os.ReadFile(p)
	if err != nil {
		return ""
	}
	var st uploadState
	if json.Unmarshal(b, &st) != nil || st.Server != want.Server || st.Path != want.Path || st.Size != want.Size ||
		!st.ModTime.Equal(want.ModTime) || st.Change != want.Change || st.Sample != want.Sample {
		return ""
	}
	return st.UploadURL
}

// writeUploadState writes st to the state file at p, whole or not at all.
func writeUploadState(p string, st uploadState) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	b, err := json.Marshal(st)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".state-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), p)
}

// uploadJSON is the output of remote upload with --json.
type uploadJSON struct {
	OK        bool   `json:"ok"`
	ID        string `json:"id"`
	Name      string `json:"name"`
	Size      int64  `json:"size"`
	Slug      string `json:"slug"`
	URL       string `json:"url"`
	PublicURL string `json:"publicUrl"`
	Page      string `json:"page"`
	// ResumedFrom is the offset the server had when this run began
	// sending: 0 for a new upload.
	ResumedFrom int64 `json:"resumedFrom"`
	// Link is the link's controls and state, when the command set any.
	Link *client.Link `json:"link,omitempty"`
}

func runRemoteUpload(ctx context.Context, c *CLI, flags *flag.FlagSet, args []string) error {
	rf := c.remoteFlagSet(flags)
	name := flags.String("name", "", "the name visitors download the file as (default: PATH's base name)")
	lf := addLinkFlags(flags, false)
	rest, err := remoteArgs(flags, args, "PATH")
	if err != nil {
		return err
	}
	link, err := lf.parse(c.stdin())
	if err != nil {
		return err
	}
	cl, err := c.remoteClient(rf)
	if err != nil {
		return err
	}
	abs, err := filepath.Abs(rest[0])
	if err != nil {
		return err
	}
	if *name == "" {
		*name = filepath.Base(abs)
	}
	f, fi, err := openRegular(abs)
	if err != nil {
		return err
	}
	defer f.Close()

	dir, err := c.uploadStateDir()
	if err != nil {
		return err
	}
	sample, err := contentSample(f, fi.Size())
	if err != nil {
		return fmt.Errorf("reading the file: %w", err)
	}
	want := uploadState{Server: cl.BaseURL(), Path: abs, Size: fi.Size(), ModTime: fi.ModTime(), Change: changeStamp(fi), Sample: sample}
	statePath := uploadStatePath(dir, want.Server, abs, want.Size, want.ModTime)
	resume := readUploadState(statePath, want)
	if resume != "" && !cl.UploadURLOf(resume) {
		resume = ""
	}
	kept := resume != ""

	up := client.Upload{
		Body: f, Size: fi.Size(), Name: *name, URL: resume, Link: clientLink(link),
		Created: func(u string) error {
			st := want
			st.UploadURL, st.Created = u, time.Now().UTC()
			if err := writeUploadState(statePath, st); err != nil {
				return fmt.Errorf("keeping the upload's state (to resume it): %w", err)
			}
			kept = true
			return nil
		},
	}
	var bar *progressbar.ProgressBar
	if isTerminal(c.Stderr) {
		bar = progressbar.NewOptions64(fi.Size(),
			progressbar.OptionSetWriter(c.Stderr),
			progressbar.OptionSetDescription(*name),
			progressbar.OptionShowBytes(true),
			progressbar.OptionShowCount(),
			progressbar.OptionSetWidth(30),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(),
			progressbar.OptionFullWidth(),
		)
		up.Progress = func(n int64) { bar.Set64(n) }
	}
	done, err := cl.Upload(ctx, up)
	if bar != nil {
		bar.Finish()
	}
	if err != nil {
		if errors.Is(err, client.ErrFileChanged) {
			// Its state names a file that is no longer there to resume.
			os.Remove(statePath)
			return fmt.Errorf("%s: %w; upload a copy that does not change", rest[0], err)
		}
		var refused *client.Error
		if kept && (!errors.As(err, &refused) || refused.Status == 408 || refused.Status == 429 || refused.Status >= 500) {
			return fmt.Errorf("%w\nThe upload can resume: run the same command again", err)
		}
		return err
	}
	if err := os.Remove(statePath); err != nil && !errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(c.Stderr, "fileframe remote upload: removing the upload's state: %v\n", err)
	}

	out := uploadJSON{OK: true, ID: done.FileID, Name: *name, Size: fi.Size(), PublicURL: done.PublicURL, Page: done.Page, ResumedFrom: done.ResumedFrom}
	if u, err := url.Parse(done.PublicURL); err == nil {
		out.URL, out.Slug = u.Path, path.Base(u.Path)
	}
	if !link.IsZero() {
		// The link as the server set it (its expiry, the password's
		// presence), for the output.
		if file, err := cl.File(ctx, done.FileID); err == nil {
			out.Link = &file.Link
		}
	}
	if rf.json {
		return c.printJSON(out)
	}
	how := ""
	if done.ResumedFrom > 0 {
		how = fmt.Sprintf(", resumed at %s", humanize.IBytes(uint64(done.ResumedFrom)))
	}
	fmt.Fprintf(c.Stdout, "Uploaded %s (%s%s)\n  id:   %s\n  link: %s\n", *name, humanize.IBytes(uint64(fi.Size())), how, done.FileID, done.PublicURL)
	if out.Link != nil {
		fmt.Fprintf(c.Stdout, "  controls: %s\n", remoteLinkText(*out.Link))
	}
	return nil
}
