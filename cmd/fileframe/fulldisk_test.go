//go:build linux

package main

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestServeFullDisk runs serve on a 32 MiB tmpfs and fills it with uploads
// (issue 15, fault 2: a full disk answered 500 internal, /readyz stayed
// 200, signing in failed, so an owner could not delete files to make room,
// and a deleted file younger than a minute freed nothing until the hourly
// clean-up). Now uploads and pages are refused with 507
// insufficient_storage before the disk is quite full, /readyz says
// "full", signing in and deleting (by the API and the CLI) still work in
// the room kept back, the deleted files' bytes are removed within a
// minute of their upload, and then everything works again.
//
// It mounts the tmpfs, so it needs root (CI runs as root); without the
// privilege it fails, saying so.
func TestServeFullDisk(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=32m,mode=0700"); err != nil {
		t.Fatalf("mounting a 32 MiB tmpfs at %s for the full-disk test: %v (it needs root, as CI runs; run the suite as root)", dir, err)
	}
	t.Cleanup(func() { syscall.Unmount(dir, syscall.MNT_DETACH) })
	data := []string{"--data", dir}
	mustCLI(t, append([]string{"account", "create", "--email", "full@example.com", "--password", "correct horse battery", "--plan", "agency"}, data...)...)
	key := cliJSON(t, append([]string{"key", "create", "--email", "full@example.com"}, data...)...)["key"].(string)
	p := startServe(t, dir, "--ops-addr", "127.0.0.1:0")
	ops, _ := strings.CutSuffix(p.ops, " (/healthz, /readyz, /metrics)")

	api := func(method, path, contentType string, body []byte) (int, map[string]any) {
		t.Helper()
		req, _ := http.NewRequest(method, p.app+path, bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		resp, b := httpDo(t, req)
		var m map[string]any
		json.Unmarshal(b, &m)
		return resp.StatusCode, m
	}
	readyz := func() (int, string) {
		t.Helper()
		resp, b := httpGet(t, ops+"/readyz")
		return resp.StatusCode, string(b)
	}
	if code, body := readyz(); code != http.StatusOK {
		t.Fatalf("readyz on an empty disk: %d %s", code, body)
	}

	// Fill the disk with 3 MiB files until it refuses one.
	var ids []string
	var refusal map[string]any
	for i := 0; ; i++ {
		if i == 20 {
			t.Fatalf("20 uploads of 3 MiB fit on a 32 MiB disk")
		}
		content := make([]byte, 3<<20)
		rand.Read(content)
		code, body := api(http.MethodPost, fmt.Sprintf("/api/files?name=f%d.bin", i), "application/octet-stream", content)
		if code == http.StatusCreated {
			ids = append(ids, body["id"].(string))
			continue
		}
		if code != http.StatusInsufficientStorage || body["code"] != "insufficient_storage" {
			t.Fatalf("upload %d on a filling disk: %d %v, want 201 or 507 insufficient_storage", i, code, body)
		}
		refusal = body
		break
	}
	t.Logf("%d files of 3 MiB stored, then: %v", len(ids), refusal["detail"])
	if len(ids) < 2 {
		t.Fatalf("only %d uploads fit", len(ids))
	}

	// Something else fills the disk to its last byte (uploads already
	// streaming can, too): the ballast beside the database still holds
	// the reserve for the writes that make room.
	filler := filepath.Join(dir, "filler")
	fillDisk(t, filler)
	if _, err := os.Stat(filepath.Join(dir, "fileframe.reserve")); err != nil {
		t.Fatalf("no ballast beside the database: %v", err)
	}
	// A small upload and a page are refused.
	if code, body := api(http.MethodPost, "/api/files?name=small.txt", "text/plain", []byte("small")); code != http.StatusInsufficientStorage {
		t.Errorf("small upload on a full disk: %d %v, want 507", code, body)
	}
	page := fmt.Sprintf(`{"fileId":%q,"html":"<!DOCTYPE html><html><head><title>t</title></head><body>hi</body></html>"}`, ids[0])
	if code, body := api(http.MethodPost, "/api/campaign/custom-html", "application/json", []byte(page)); code != http.StatusInsufficientStorage || body["code"] != "insufficient_storage" {
		t.Errorf("page POST on a full disk: %d %v, want 507 insufficient_storage", code, body)
	}
	if code, body := readyz(); code != http.StatusServiceUnavailable || !strings.Contains(body, `"full"`) {
		t.Errorf("readyz on a full disk: %d %s, want 503 naming the full disk", code, body)
	}

	// The owner can still sign in and delete files, by the API and the CLI.
	signIn(t, p.app, "full@example.com", "correct horse battery")
	for _, id := range ids[:len(ids)-1] {
		if code, body := api(http.MethodDelete, "/api/files/"+id, "", nil); code != http.StatusOK {
			t.Fatalf("DELETE %s on a full disk: %d %v", id, code, body)
		}
	}
	if r := mustCLI(t, append([]string{"file", "delete", "--email", "full@example.com", "--json", ids[len(ids)-1]}, data...)...); !strings.Contains(r.stdout, `"deleted":true`) {
		t.Errorf("file delete on a full disk printed %q", r.stdout)
	}

	// The ballast went to let those writes through; with the filler gone
	// it is made again before anything new is stored.
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}

	// The room comes back within a minute of the uploads (the deleted
	// bytes are removed as soon as no upload of the same bytes can be about
	// to use them), not at the next hourly clean-up; then the ballast is
	// made again and the disk is ready.
	deadline := time.Now().Add(90 * time.Second)
	for {
		var st syscall.Statfs_t
		if err := syscall.Statfs(dir, &st); err != nil {
			t.Fatal(err)
		}
		code, _ := readyz()
		if free := st.Bavail * uint64(st.Bsize); free > 20<<20 && code == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			_, body := readyz()
			t.Fatalf("90 s after the deletions: %d bytes free, readyz %d %s", st.Bavail*uint64(st.Bsize), code, body)
		}
		time.Sleep(500 * time.Millisecond)
	}
	content := make([]byte, 3<<20)
	rand.Read(content)
	if code, body := api(http.MethodPost, "/api/files?name=after.bin", "application/octet-stream", content); code != http.StatusCreated {
		t.Errorf("upload after making room: %d %v", code, body)
	}
	if strings.Contains(p.stderr.String(), `"level":"ERROR"`) {
		t.Errorf("a full disk was logged as a server error:\n%s", p.stderr)
	}
	if !strings.Contains(p.stderr.String(), "disk full") {
		t.Errorf("the refused writes were not logged for the operator")
	}
	p.stop()
	if entries, _ := os.ReadDir(dir + "/blobs/tmp"); len(entries) != 0 {
		t.Errorf("temp files left in blobs/tmp: %d", len(entries))
	}
	if _, err := os.Stat(filepath.Join(dir, "fileframe.reserve")); err != nil {
		t.Errorf("the ballast was not made again: %v", err)
	}
}

// fillDisk writes zeros to path until the file system has no byte left.
func fillDisk(t *testing.T, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for {
		if _, err := f.Write(buf); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("filling the disk: %v", err)
			}
			break
		}
	}
	for _, n := range []int{4096, 512, 1} { // the last partial blocks
		for {
			if _, err := f.Write(buf[:n]); err != nil {
				break
			}
		}
	}
}
