package crash

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/jackc/pgx/v5"
	_ "modernc.org/sqlite" // database/sql driver "sqlite", to check the database
)

// verify checks every page revision and file given against the running
// server and describes those missing or different.
func (h *harness) verify(ctx context.Context, pages []pageWrite, uploads []uploadWrite) []string {
	jobs := make(chan func() string)
	var (
		mu   sync.Mutex
		lost []string
		wg   sync.WaitGroup
	)
	for range 4 {
		wg.Go(func() {
			for job := range jobs {
				if l := job(); l != "" {
					mu.Lock()
					lost = append(lost, l)
					mu.Unlock()
				}
			}
		})
	}
	for _, p := range pages {
		jobs <- func() string { return h.checkPage(ctx, p) }
	}
	for _, u := range uploads {
		jobs <- func() string { return h.checkUpload(ctx, u) }
	}
	close(jobs)
	wg.Wait()
	return lost
}

// checkPage reads a revision back through the API and compares its HTML.
func (h *harness) checkPage(ctx context.Context, p pageWrite) string {
	status, body, err := h.do(ctx, http.MethodGet, fmt.Sprintf("%s/api/files/%s/page/revisions/%d", h.srv.app, p.fileID, p.rev), "", nil)
	if err != nil {
		return fmt.Sprintf("%s: %v", p, err)
	}
	var rev struct {
		HTML *string `json:"html"`
	}
	if status != http.StatusOK || json.Unmarshal(body, &rev) != nil || rev.HTML == nil {
		return fmt.Sprintf("%s: GET answered %d %.200s", p, status, strings.Join(strings.Fields(string(body)), " "))
	}
	if sha256.Sum256([]byte(*rev.HTML)) != p.sum {
		return fmt.Sprintf("%s: its HTML (%d bytes) is not what was posted", p, len(*rev.HTML))
	}
	return ""
}

// checkUpload downloads a file from its link and compares its bytes.
func (h *harness) checkUpload(ctx context.Context, u uploadWrite) string {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, h.srv.app+"/f/"+u.slug+"/download", nil)
	if err != nil {
		return err.Error()
	}
	resp, err := h.http.Do(req)
	if err != nil {
		return fmt.Sprintf("%s: %v", u, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Sprintf("%s: download answered %d", u, resp.StatusCode)
	}
	d := sha256.New()
	n, err := io.Copy(d, resp.Body)
	if err != nil {
		return fmt.Sprintf("%s: download cut after %d bytes: %v", u, n, err)
	}
	if n != u.size || [32]byte(d.Sum(nil)) != u.sum {
		return fmt.Sprintf("%s: downloaded %d bytes that are not the ones uploaded", u, n)
	}
	return ""
}

// leftovers counts what crashes left in the blob store once the restarted
// server is up: the files in blobs/tmp on disk, the objects and multipart
// uploads under tmp/ on S3.
func (h *harness) leftovers(ctx context.Context) (n int, size int64, s3tmp int, err error) {
	if h.cfg.S3 == nil {
		entries, err := os.ReadDir(filepath.Join(h.cfg.Dir, "blobs", "tmp"))
		if err != nil {
			return 0, 0, 0, err
		}
		for _, e := range entries {
			n++
			if fi, err := e.Info(); err == nil {
				size += fi.Size()
			}
		}
		return n, size, 0, nil
	}
	c := s3.New(s3.Options{
		BaseEndpoint: aws.String(h.cfg.S3.Endpoint),
		Region:       "us-east-1",
		Credentials:  credentials.NewStaticCredentialsProvider(h.cfg.S3.AccessKey, h.cfg.S3.SecretKey, ""),
		UsePathStyle: true,
	})
	objects := s3.NewListObjectsV2Paginator(c, &s3.ListObjectsV2Input{Bucket: &h.cfg.S3.Bucket, Prefix: aws.String("tmp/")})
	for objects.HasMorePages() {
		page, err := objects.NextPage(ctx)
		if err != nil {
			return 0, 0, 0, fmt.Errorf("listing the bucket's tmp/: %w", err)
		}
		s3tmp += len(page.Contents)
	}
	uploads, err := c.ListMultipartUploads(ctx, &s3.ListMultipartUploadsInput{Bucket: &h.cfg.S3.Bucket, Prefix: aws.String("tmp/")})
	if err != nil {
		return 0, 0, 0, fmt.Errorf("listing the bucket's multipart uploads: %w", err)
	}
	return 0, 0, s3tmp + len(uploads.Uploads), nil
}

// prepareIntegrity readies the database's check: PostgreSQL's amcheck
// extension in the run's database.
func (h *harness) prepareIntegrity(ctx context.Context) error {
	if h.cfg.DatabaseURL == "" {
		return nil
	}
	conn, err := pgx.Connect(ctx, h.cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, `CREATE EXTENSION IF NOT EXISTS amcheck`)
	return err
}

// integrity checks the database with no server running: SQLite's
// integrity_check and foreign_key_check on the file, opened read-only;
// on PostgreSQL (which the harness does not kill) amcheck's checks of
// every table and B-tree index. It returns "ok" or what was found.
func (h *harness) integrity(ctx context.Context) (string, error) {
	if h.cfg.DatabaseURL != "" {
		return h.amcheck(ctx)
	}
	db, err := sql.Open("sqlite", "file:"+filepath.Join(h.cfg.Dir, "fileframe.db")+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		return err.Error(), err
	}
	defer db.Close()
	var found []string
	for _, q := range []string{"PRAGMA integrity_check", "PRAGMA foreign_key_check"} {
		rows, err := db.QueryContext(ctx, q)
		if err != nil {
			return q + ": " + err.Error(), err
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				rows.Close()
				return q + ": " + err.Error(), err
			}
			if line := fmt.Sprint(vals...); line != "ok" {
				found = append(found, q+": "+line)
			}
		}
		if err := rows.Close(); err != nil {
			return q + ": " + err.Error(), err
		}
		if err := rows.Err(); err != nil {
			return q + ": " + err.Error(), err
		}
	}
	if len(found) > 0 {
		return strings.Join(found, "; "), nil
	}
	return "ok", nil
}

// amcheck runs verify_heapam on every table and bt_index_check (with
// heapallindexed) on every B-tree index of the public schema.
func (h *harness) amcheck(ctx context.Context) (string, error) {
	conn, err := pgx.Connect(ctx, h.cfg.DatabaseURL)
	if err != nil {
		return err.Error(), err
	}
	defer conn.Close(ctx)
	var found []string
	// A failed Query's rows carry its error (pgx), which CollectRows
	// returns.
	rows, _ := conn.Query(ctx, `
		SELECT c.oid::regclass::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = 'public' AND c.relkind = 'r'`)
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return err.Error(), err
	}
	for _, t := range tables {
		var n int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM verify_heapam($1::regclass)`, t).Scan(&n); err != nil {
			return err.Error(), err
		}
		if n > 0 {
			found = append(found, fmt.Sprintf("verify_heapam(%s): %d corrupt tuples", t, n))
		}
	}
	rows, _ = conn.Query(ctx, `
		SELECT c.oid::regclass::text FROM pg_index i
		JOIN pg_class c ON c.oid = i.indexrelid
		JOIN pg_am a ON a.oid = c.relam
		JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = 'public' AND a.amname = 'btree' AND i.indisvalid`)
	indexes, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return err.Error(), err
	}
	for _, ix := range indexes {
		if _, err := conn.Exec(ctx, `SELECT bt_index_check($1::regclass, true)`, ix); err != nil {
			found = append(found, fmt.Sprintf("bt_index_check(%s): %v", ix, err))
		}
	}
	if len(found) > 0 {
		return strings.Join(found, "; "), nil
	}
	return "ok", nil
}

// reservation is an upload's reservation as the store keeps it.
type reservation struct {
	id      string
	bytes   int64
	expires time.Time
}

// reservations lists the reservations that count at now.
func (h *harness) reservations(ctx context.Context, now time.Time) ([]reservation, error) {
	var list []reservation
	if h.cfg.DatabaseURL != "" {
		conn, err := pgx.Connect(ctx, h.cfg.DatabaseURL)
		if err != nil {
			return nil, err
		}
		defer conn.Close(ctx)
		rows, _ := conn.Query(ctx, `SELECT id, bytes, expires_at FROM upload_reservations WHERE expires_at >= $1`, now)
		return pgx.CollectRows(rows, func(row pgx.CollectableRow) (reservation, error) {
			var r reservation
			err := row.Scan(&r.id, &r.bytes, &r.expires)
			return r, err
		})
	}
	db, err := sql.Open("sqlite", "file:"+filepath.Join(h.cfg.Dir, "fileframe.db")+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `SELECT id, bytes, expires_at FROM upload_reservations WHERE expires_at >= ?`, now.UnixMilli())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var r reservation
		var ms int64
		if err := rows.Scan(&r.id, &r.bytes, &ms); err != nil {
			return nil, err
		}
		r.expires = time.UnixMilli(ms)
		list = append(list, r)
	}
	return list, rows.Err()
}

// Reservation lifetimes (internal/service's plainReservationTTL and
// UploadReservationTTL), with a minute's slack for the clocks.
const (
	plainTTL = 15*time.Minute + time.Minute
	tusTTL   = 25*time.Hour + time.Minute
)

// checkReservations finds the reservations that the round's kill left
// counting against the account's quota after the restart and after the
// cut tus uploads were finished: those of uploads the kill cut (a plain
// upload's, "p.…", counts until it expires, 15 minutes after its last
// renewal; a tus upload whose creation's answer was lost keeps its room
// for a day, as any unfinished tus upload). More of them than requests
// cut, one that would count longer, or one of a tus upload that finished
// (whose room its file took over) is unexplained.
func (h *harness) checkReservations(ctx context.Context, r *Round, l *load, killedAt time.Time) error {
	list, err := h.reservations(ctx, time.Now())
	if err != nil {
		return fmt.Errorf("reading the reservations: %w", err)
	}
	// A tus upload's ID on S3 is its reservation's, "+" and the multipart
	// upload's ID.
	finished := map[string]bool{}
	for _, id := range l.finished {
		finished[id] = true
		base, _, _ := strings.Cut(id, "+")
		finished[base] = true
	}
	leaked := 0
	seen := map[string]bool{}
	for _, res := range list {
		seen[res.id] = true
		if h.reserved[res.id] {
			continue // an earlier round's, not yet expired
		}
		r.Reservations++
		r.ReservedBytes += res.bytes
		if finished[res.id] {
			leaked++
			if leaked <= 3 {
				r.Unexplained = append(r.Unexplained, fmt.Sprintf("%s (%d bytes) still counts although its tus upload finished and was acknowledged", res.id, res.bytes))
			}
			continue
		}
		ttl := tusTTL
		if strings.HasPrefix(res.id, "p.") {
			ttl = plainTTL
		}
		if res.expires.After(killedAt.Add(ttl)) {
			r.Unexplained = append(r.Unexplained, fmt.Sprintf("%s (%d bytes) counts until %s, longer than its lifetime after the kill", res.id, res.bytes, res.expires.Format(time.RFC3339)))
		}
	}
	if leaked > 3 {
		r.Unexplained = append(r.Unexplained, fmt.Sprintf("… %d reservations in all still count although their tus uploads finished", leaked))
	}
	if n := r.Reservations - leaked; n > l.cut {
		r.Unexplained = append(r.Unexplained, fmt.Sprintf("%d reservations left by the kill, more than the %d requests it cut", n, l.cut))
	}
	h.reserved = seen
	return nil
}
