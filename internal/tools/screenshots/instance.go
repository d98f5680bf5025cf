package main

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/fileframe/fileframe/internal/blob/disk"
	"github.com/fileframe/fileframe/internal/sqlite"
	"github.com/fileframe/fileframe/internal/web"
)

// The origins of the demo instance, as in the README's production example:
// the content origin on a registrable domain of its own. Only the browser
// and the seeding client know these names; they send them to the loopback
// listeners (see instance.hosts), so that no address or port of the
// machine shows in the pictures.
const (
	appOrigin     = "http://files.example.com"
	contentOrigin = "http://usercontent.example.net"
)

// demoNow is the demo instance's clock: every time it shows is fixed, so
// that screens come out the same on every run (the demo pages speak of a
// launch on 20 March).
var demoNow = time.Date(2026, time.March, 12, 10, 24, 0, 0, time.UTC)

// instance is a whole Fileframe on real parts, as `fileframe serve` runs
// it: SQLite and blobs in a temporary directory, the app and content origins
// on two loopback listeners.
type instance struct {
	dir     string
	store   *sqlite.Store
	blobs   *disk.Store
	srv     *web.Server
	servers []*http.Server
	// hosts maps the origins' host:port to the listeners' addresses.
	hosts map[string]string
}

// startInstance starts a Fileframe with open sign-up and resumable uploads
// on a fresh data directory. Server errors are logged to logs.
func startInstance(ctx context.Context, logs io.Writer) (_ *instance, err error) {
	dir, err := os.MkdirTemp("", "fileframe-screenshots-")
	if err != nil {
		return nil, err
	}
	in := &instance{dir: dir}
	defer func() {
		if err != nil {
			err = errors.Join(err, in.close())
		}
	}()
	if in.store, err = sqlite.Open(ctx, filepath.Join(dir, "fileframe.db")); err != nil {
		return nil, fmt.Errorf("opening SQLite: %w", err)
	}
	if in.blobs, err = disk.Open(filepath.Join(dir, "blobs")); err != nil {
		return nil, fmt.Errorf("opening the blob directory: %w", err)
	}
	var listeners [2]net.Listener
	for i := range listeners {
		if listeners[i], err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
			for _, l := range listeners[:i] {
				l.Close()
			}
			return nil, err
		}
	}
	appURL, _ := url.Parse(appOrigin)
	contentURL, _ := url.Parse(contentOrigin)
	in.hosts = map[string]string{
		appURL.Host + ":80":     listeners[0].Addr().String(),
		contentURL.Host + ":80": listeners[1].Addr().String(),
	}
	secret := make([]byte, 32)
	rand.Read(secret) // never returns an error (crypto/rand docs, Go 1.24+)
	in.srv, err = web.New(web.Config{
		Store:         in.store,
		Blobs:         in.blobs,
		Logger:        slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelWarn})),
		BaseURL:       appURL,
		ContentOrigin: contentURL,
		PreviewSecret: secret,
		Signup:        true,
		UploadDir:     filepath.Join(dir, "uploads"),
		// Download counts reach the store at once, before the next screen.
		CountFlushInterval: 20 * time.Millisecond,
		Now:                func() time.Time { return demoNow },
		StoreKind:          "sqlite",
		BlobsKind:          "disk",
	})
	if err != nil {
		listeners[0].Close()
		listeners[1].Close()
		return nil, err
	}
	for i, h := range []http.Handler{in.srv.AppHandler(), in.srv.ContentHandler()} {
		s := &http.Server{Handler: h}
		in.servers = append(in.servers, s)
		go s.Serve(listeners[i])
	}
	return in, nil
}

// close stops the servers, closes the data and removes the directory.
func (in *instance) close() error {
	var err error
	for _, s := range in.servers {
		err = errors.Join(err, s.Close())
	}
	if in.srv != nil {
		err = errors.Join(err, in.srv.Close(context.Background()))
	}
	if in.store != nil {
		err = errors.Join(err, in.store.Close())
	}
	return errors.Join(err, os.RemoveAll(in.dir))
}
