// Command screenshots captures every screen of Fileframe's web application,
// at a desktop and a phone size, in headless Chromium. It starts a real
// Fileframe on loopback with a fresh data directory, fills it with demo data
// through the app's own forms and API (the files' records through the store,
// so that they can be dated in the past), and writes <screen>-<size>.png and an index, README.md, to the
// output directory. scripts/screenshots runs it into docs/screenshots.
//
// It fails, writing nothing more, when a screen answers another status than
// the one it should: a broken page is never captured as if it worked.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"image/png"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

func main() {
	out := flag.String("out", "docs/screenshots", "the directory to write the images and README.md to")
	only := flag.String("only", "", "comma-separated screen names to capture (default: all)")
	flag.Parse()
	var names []string
	if *only != "" {
		names = strings.Split(*only, ",")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := capture(ctx, *out, names); err != nil {
		fmt.Fprintln(os.Stderr, "screenshots:", err)
		os.Exit(1)
	}
}

// capture runs the named screens (all when names is empty) into dir, and
// after a run of all of them removes the images of screens no longer
// listed.
func capture(ctx context.Context, dir string, names []string) error {
	list, err := selectScreens(names)
	if err != nil {
		return err
	}
	if err := run(ctx, dir, list, os.Stdout, os.Stderr); err != nil {
		return err
	}
	if len(names) > 0 {
		return nil
	}
	return removeStale(dir)
}

// run captures the screens of list, which must be in stage order, into dir
// and writes the index, printing progress to stdout and the server's and
// pages' complaints to stderr.
func run(ctx context.Context, dir string, list []screen, stdout, stderr io.Writer) (err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	in, err := startInstance(ctx, stderr)
	if err != nil {
		return fmt.Errorf("starting Fileframe: %w", err)
	}
	defer func() { err = errors.Join(err, in.close()) }()
	b, err := startBrowser(ctx, in.hosts)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, b.close()) }()

	d := newDemo(in)
	for _, sc := range list {
		if err := d.advance(ctx, sc.stage); err != nil {
			return err
		}
		t, err := b.tabOf(sc.as, d.clients[sc.as].cookies())
		if err != nil {
			return err
		}
		target := sc.path(d)
		if strings.HasPrefix(target, "/") {
			target = appOrigin + target
		}
		want := sc.status
		if want == 0 {
			want = 200
		}
		for _, sz := range sizes {
			img, warnings, err := t.capture(target, sc.click, sz, want)
			for _, w := range append(warnings, t.takeLog()...) {
				fmt.Fprintf(stderr, "  %s-%s: %s\n", sc.name, sz.name, w)
			}
			if err != nil {
				return fmt.Errorf("%s at %s: %w", sc.name, sz.name, err)
			}
			file := imageName(sc, sz)
			if err := os.WriteFile(filepath.Join(dir, file), img, 0o644); err != nil {
				return err
			}
			cfg, err := png.DecodeConfig(bytes.NewReader(img))
			if err != nil {
				return fmt.Errorf("%s at %s: the screenshot: %w", sc.name, sz.name, err)
			}
			fmt.Fprintf(stdout, "%-28s %-8s %4d×%-5d %s\n", sc.name, sz.name, cfg.Width, cfg.Height, filepath.Join(dir, file))
		}
	}
	// The link preview card (card.go), once the demo files exist.
	if err := saveCard(ctx, d, dir, stdout); err != nil {
		return err
	}
	return writeIndex(dir)
}

// selectScreens returns the screens with the given names, in table order,
// or all of them.
func selectScreens(names []string) ([]screen, error) {
	if len(names) == 0 {
		return screens, nil
	}
	var out []screen
	for _, sc := range screens {
		if slices.Contains(names, sc.name) {
			out = append(out, sc)
		}
	}
	for _, n := range names {
		if !slices.ContainsFunc(screens, func(sc screen) bool { return sc.name == n }) {
			return nil, fmt.Errorf("no screen named %q", n)
		}
	}
	return out, nil
}

// imageName is the file name of a screen's image at a size.
func imageName(sc screen, sz size) string { return sc.name + "-" + sz.name + ".png" }

// removeStale removes the images in dir of screens or sizes no longer
// listed, so that a renamed screen leaves no old image behind.
func removeStale(dir string) error {
	keep := map[string]bool{}
	for _, sc := range screens {
		for _, sz := range sizes {
			keep[imageName(sc, sz)] = true
		}
	}
	for _, sz := range sizes {
		old, err := filepath.Glob(filepath.Join(dir, "*-"+sz.name+".png"))
		if err != nil {
			return err
		}
		for _, f := range old {
			if !keep[filepath.Base(f)] {
				if err := os.Remove(f); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
