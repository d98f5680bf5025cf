package main

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestScreenshots runs the tool for a page of the app and for a public link
// with its custom page in the sandbox frame, and checks the images: PNGs
// as wide as the window, at least as tall, and not blank.
func TestScreenshots(t *testing.T) {
	dir := t.TempDir()
	names := []string{"02-login", "public-custom-page"}
	list, err := selectScreens(names)
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), dir, list, &stdout, &stderr); err != nil {
		t.Fatalf("run: %v\nstdout:\n%s\nstderr:\n%s", err, &stdout, &stderr)
	}
	index, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		for _, sz := range sizes {
			file := name + "-" + sz.name + ".png"
			if !bytes.Contains(index, []byte("]("+file+")")) {
				t.Errorf("README.md does not link %s", file)
			}
			f, err := os.Open(filepath.Join(dir, file))
			if err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(f)
			f.Close()
			if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			b := img.Bounds()
			if int64(b.Dx()) != sz.width || int64(b.Dy()) < sz.height {
				t.Errorf("%s is %d×%d, want %d wide and at least %d tall", file, b.Dx(), b.Dy(), sz.width, sz.height)
			}
			if n := colours(img); n < 16 {
				t.Errorf("%s has %d colours: a blank or unfinished page", file, n)
			}
			// The custom page in its frame, above the control at the
			// bottom: once it came out as an empty page behind the
			// control.
			if name == "public-custom-page" {
				top := img.(interface {
					SubImage(image.Rectangle) image.Image
				}).SubImage(image.Rect(b.Min.X, b.Min.Y, b.Max.X, b.Min.Y+b.Dy()*3/4))
				if n := colours(top); n < 16 {
					t.Errorf("%s has %d colours above the control: the custom page is not painted", file, n)
				}
			}
		}
	}
	// One line a screenshot, and one for the link preview card.
	if got := strings.Count(stdout.String(), "\n"); got != len(names)*len(sizes)+1 {
		t.Errorf("printed %d progress lines, want one a screenshot:\n%s", got, &stdout)
	}
}

// TestScreenshotsFailOnErrors checks that a screen answering another status
// than its own, or sending the browser elsewhere, stops the run with an
// error naming it, rather than being captured.
func TestScreenshotsFailOnErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		sc   screen
		want string
	}{
		{"missing route", screen{name: "missing", stage: fresh, as: visitor, path: at("/no-such-page")}, "answered 404"},
		{"redirect", screen{name: "redirected", stage: accounts, as: visitor, path: at("/account")}, "redirected to"},
		{"unexpected success", screen{name: "not-404", stage: fresh, as: visitor, path: at("/setup"), status: http.StatusNotFound}, "answered 200"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			err := run(context.Background(), dir, []screen{tc.sc}, io.Discard, io.Discard)
			if err == nil || !strings.Contains(err.Error(), tc.sc.name) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("run: got error %v, want one naming %s that says %q", err, tc.sc.name, tc.want)
			}
			if imgs, _ := filepath.Glob(filepath.Join(dir, "*.png")); len(imgs) > 0 {
				t.Errorf("run wrote %v for a failing screen", imgs)
			}
		})
	}
}

// colours counts the distinct colours of img, up to 1000.
func colours(img image.Image) int {
	seen := map[[4]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y && len(seen) < 1000; y += 3 {
		for x := b.Min.X; x < b.Max.X; x += 3 {
			r, g, bl, a := img.At(x, y).RGBA()
			seen[[4]uint32{r, g, bl, a}] = true
		}
	}
	return len(seen)
}

// TestScreensTable checks the table: names usable as file names and
// unique, every screen taken no earlier than the one before it (the
// instance only fills up), and a path for each.
func TestScreensTable(t *testing.T) {
	valid := regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	seen := map[string]bool{}
	for i, sc := range screens {
		if !valid.MatchString(sc.name) {
			t.Errorf("screen %q: the name must be lower-case words joined by hyphens", sc.name)
		}
		if seen[sc.name] {
			t.Errorf("screen %q is listed twice", sc.name)
		}
		seen[sc.name] = true
		if i > 0 && sc.stage < screens[i-1].stage {
			t.Errorf("screen %q (stage %d) comes after %q (stage %d): list screens by stage", sc.name, sc.stage, screens[i-1].name, screens[i-1].stage)
		}
		if sc.path == nil || sc.title == "" || sc.as == "" {
			t.Errorf("screen %q lacks a path, title or person", sc.name)
		}
	}
}

func TestSelectScreens(t *testing.T) {
	got, err := selectScreens([]string{"public-default", "02-login"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].name != "02-login" || got[1].name != "public-default" {
		t.Errorf("selectScreens gave %v, want 02-login then public-default (table order)", got)
	}
	if _, err := selectScreens([]string{"no-such-screen"}); err == nil {
		t.Error("selectScreens accepted an unknown name")
	}
	if all, _ := selectScreens(nil); len(all) != len(screens) {
		t.Errorf("selectScreens(nil) gave %d screens, want all %d", len(all), len(screens))
	}
}

// TestWriteIndex checks that the index lists the screens whose images are
// all there, in table order, and no others.
func TestWriteIndex(t *testing.T) {
	dir := t.TempDir()
	have := []string{"public-default", "01-setup"}
	for _, name := range have {
		for _, sz := range sizes {
			if err := os.WriteFile(filepath.Join(dir, name+"-"+sz.name+".png"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	// One size alone does not make a screen.
	if err := os.WriteFile(filepath.Join(dir, "02-login-desktop.png"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeIndex(dir); err != nil {
		t.Fatal(err)
	}
	index, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	got := regexp.MustCompile("(?m)^`([a-z0-9-]+)`").FindAllStringSubmatch(string(index), -1)
	var names []string
	for _, m := range got {
		names = append(names, m[1])
	}
	if want := []string{"01-setup", "public-default"}; strings.Join(names, " ") != strings.Join(want, " ") {
		t.Errorf("the index lists %q, want %q", names, want)
	}
}
