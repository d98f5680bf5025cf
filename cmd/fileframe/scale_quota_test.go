package main

import (
	"bytes"
	"context"
	"mime/multipart"
	"net/http"
	"strconv"
	"sync"
	"testing"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/postgres"
)

// TestScaleOutQuota: two instances on one PostgreSQL database hold one
// account's storage quota together. Twenty uploads of 800 kB at once,
// half through each, against 1 MB: one is stored, the others get 413
// (issue 9, item 2; before reservations 6 to 10 were stored on one
// instance alone).
func TestScaleOutQuota(t *testing.T) {
	t.Parallel()
	db := newTestDatabase(t)
	env := []string{"FILEFRAME_DATABASE_URL=" + db, "FILEFRAME_QUOTA_AGENCY_STORAGE=1MB"}
	cliData := []string{"--data", t.TempDir()}
	cli := func(args ...string) map[string]any {
		t.Helper()
		return cliJSONEnv(t, env, append(args, cliData...)...)
	}
	cli("account", "create", "--email", "quota@example.com", "--plan", "agency")
	key := cli("key", "create", "--email", "quota@example.com")["key"].(string)
	a := startServeEnv(t, env, t.TempDir())
	b := startServeEnv(t, env, t.TempDir())

	const n, size = 20, 800_000
	content := bytes.Repeat([]byte{7}, size)
	statuses := map[int]int{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		app := a.app
		if i%2 == 1 {
			app = b.app
		}
		var body bytes.Buffer
		w := multipart.NewWriter(&body)
		fw, _ := w.CreateFormFile("file", "f"+strconv.Itoa(i)+".bin")
		fw.Write(content)
		w.Close()
		req, _ := http.NewRequest(http.MethodPost, app+"/api/files", &body)
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", w.FormDataContentType())
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Errorf("upload %d: %v", i, err)
				return
			}
			resp.Body.Close()
			mu.Lock()
			statuses[resp.StatusCode]++
			mu.Unlock()
		}()
	}
	close(start)
	wg.Wait()
	if statuses[http.StatusCreated] != 1 || statuses[http.StatusRequestEntityTooLarge] != n-1 {
		t.Errorf("statuses through two instances: got %v, want one 201 and %d 413", statuses, n-1)
	}

	store, err := postgres.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	acct, err := store.AccountByEmail(context.Background(), "quota@example.com")
	if err != nil {
		t.Fatal(err)
	}
	files, err := store.FilesByAccount(context.Background(), acct.ID)
	if err != nil {
		t.Fatal(err)
	}
	var sum int64
	for _, f := range files {
		sum += f.Size
	}
	if len(files) != 1 || sum > 1_000_000 {
		t.Errorf("stored %d files, %d bytes; want 1 within 1 MB", len(files), sum)
	}
	// Every refused upload gave its room back: the rest of the quota can
	// be reserved at once.
	if _, err := store.Reserve(context.Background(), fileframe.Reservation{ID: "probe", AccountID: acct.ID, Bytes: 1_000_000 - sum, ExpiresAt: acct.CreatedAt.AddDate(1, 0, 0)}, fileframe.Quota{Storage: 1_000_000}, acct.CreatedAt); err != nil {
		t.Errorf("reserving the room left: %v", err)
	}
	for _, p := range []*serveProc{a, b} {
		p.stop()
		p.checkJSONLogs()
	}
}
