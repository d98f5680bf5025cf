package client

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// TestKeyStaysWithTheServer: a redirect or a tus Location naming another
// origin (another port of the same host included) is an error, and the
// other origin never sees the key (the outside attack's fake server got it
// both ways).
func TestKeyStaysWithTheServer(t *testing.T) {
	var stolen atomic.Int32
	thief := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			stolen.Add(1)
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer thief.Close()

	redirect, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, thief.URL+r.URL.Path, http.StatusTemporaryRedirect)
	})
	if _, err := redirect.Files(context.Background(), ListOptions{}); err == nil || !strings.Contains(err.Error(), "another origin") {
		t.Errorf("a redirect to another origin: got %v, want refused", err)
	}

	location, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", thief.URL+"/uploads/tus/stolen")
		w.Header().Set("Tus-Resumable", "1.0.0")
		w.WriteHeader(http.StatusCreated)
	})
	_, err := location.Upload(context.Background(), Upload{Body: bytes.NewReader([]byte("secret")), Size: 6, Name: "a.txt"})
	if err == nil || !strings.Contains(err.Error(), "another origin") {
		t.Errorf("a tus Location on another origin: got %v, want refused", err)
	}
	if n := stolen.Load(); n != 0 {
		t.Errorf("the other origin got the key %d times", n)
	}
	if location.UploadURLOf("http://user@" + strings.TrimPrefix(location.BaseURL(), "http://") + "/uploads/tus/x") {
		t.Error("an upload URL with user info counts as the server's")
	}
}

// TestAnswersAreCapped: an endless answer stops at MaxAnswer with an
// error instead of filling memory.
func TestAnswersAreCapped(t *testing.T) {
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"ok":true,"files":[{"name":"`)
		chunk := bytes.Repeat([]byte("a"), 1<<20)
		for range MaxAnswer>>20 + 2 {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	_, err := c.Files(context.Background(), ListOptions{})
	if err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("an answer over %d MiB: got %v, want the cap's error", MaxAnswer>>20, err)
	}
}
