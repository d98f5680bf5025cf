package main

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/blob/s3"
)

func TestParseServeConfigBackends(t *testing.T) {
	dir := t.TempDir()
	secretFile := filepath.Join(dir, "secret")
	os.WriteFile(secretFile, []byte("s3cr3t/with+chars\n"), 0o600)
	urlFile := filepath.Join(dir, "dburl")
	os.WriteFile(urlFile, []byte("postgresql://ff:pw@db.internal:5432/ff?sslmode=require\n"), 0o600)

	t.Run("defaults: SQLite and disk", func(t *testing.T) {
		c, err := parseForTest(nil, envOf())
		if err != nil {
			t.Fatal(err)
		}
		if st := c.Storage(); st.StoreKind() != "sqlite" || st.BlobsKind() != "disk" || c.DownloadRedirect {
			t.Errorf("got %s, %s, redirect %v; want sqlite, disk, false", st.StoreKind(), st.BlobsKind(), c.DownloadRedirect)
		}
	})
	t.Run("flags", func(t *testing.T) {
		c, err := parseForTest([]string{"--database-url", "postgres://ff@db/ff", "--s3-bucket", "files",
			"--s3-endpoint", "http://127.0.0.1:7070", "--s3-region", "eu-west-1", "--s3-access-key", "AK",
			"--s3-secret-key-file", secretFile, "--s3-path-style", "--s3-prefix", "ff/", "--s3-idle-timeout", "5m", "--download-redirect"}, envOf())
		if err != nil {
			t.Fatal(err)
		}
		want := s3.Config{Endpoint: "http://127.0.0.1:7070", Region: "eu-west-1", Bucket: "files", AccessKey: "AK",
			SecretKey: "s3cr3t/with+chars", PathStyle: true, Prefix: "ff/", IdleTimeout: 5 * time.Minute}
		if c.DatabaseURL != "postgres://ff@db/ff" || c.S3 != want || !c.DownloadRedirect {
			t.Errorf("got %q %+v %v\nwant the flags' values, %+v", c.DatabaseURL, c.S3, c.DownloadRedirect, want)
		}
		if st := c.Storage(); st.StoreKind() != "postgres" || st.BlobsKind() != "s3" {
			t.Errorf("kinds: %s, %s", st.StoreKind(), st.BlobsKind())
		}
	})
	t.Run("env, files trimmed of one newline", func(t *testing.T) {
		c, err := parseForTest(nil, envOf("FILEFRAME_DATABASE_URL_FILE", urlFile, "FILEFRAME_S3_BUCKET", "b",
			"FILEFRAME_S3_ACCESS_KEY", "AK", "FILEFRAME_S3_SECRET_KEY_FILE", secretFile,
			"FILEFRAME_S3_PATH_STYLE", "true", "FILEFRAME_DOWNLOAD_REDIRECT", "1"))
		if err != nil {
			t.Fatal(err)
		}
		if c.DatabaseURL != "postgresql://ff:pw@db.internal:5432/ff?sslmode=require" {
			t.Errorf("DatabaseURL from file: got %q", c.DatabaseURL)
		}
		if c.S3.SecretKey != "s3cr3t/with+chars" || !c.S3.PathStyle || c.S3.Region != s3.DefaultRegion || c.S3.IdleTimeout != s3.DefaultIdleTimeout || !c.DownloadRedirect {
			t.Errorf("S3 from env: got %+v, redirect %v", c.S3, c.DownloadRedirect)
		}
	})
}

func TestParseServeConfigBackendErrors(t *testing.T) {
	dir := t.TempDir()
	secretFile := filepath.Join(dir, "secret")
	os.WriteFile(secretFile, []byte("topsecret\n"), 0o600)
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, []byte("\n"), 0o600)
	s3ok := []string{"--s3-bucket", "b", "--s3-access-key", "AK", "--s3-secret-key", "topsecret"}

	tests := []struct {
		name string
		args []string
		env  lookupEnv
		want string
	}{
		{"database URL not postgres", []string{"--database-url", "mysql://root:hunter2@db/ff"}, nil, "must be a postgres:// or postgresql:// URL"},
		{"database URL and file", []string{"--database-url", "postgres://db/ff"}, envOf("FILEFRAME_DATABASE_URL_FILE", secretFile), "both --database-url (FILEFRAME_DATABASE_URL) and --database-url-file (FILEFRAME_DATABASE_URL_FILE) are set"},
		{"unreadable file", nil, envOf("FILEFRAME_S3_SECRET_KEY_FILE", filepath.Join(dir, "missing")), "--s3-secret-key-file (FILEFRAME_S3_SECRET_KEY_FILE): cannot read"},
		{"empty file", []string{"--database-url-file", empty}, nil, "is empty"},
		{"bucket without keys", []string{"--s3-bucket", "b"}, nil, "--s3-bucket needs credentials"},
		{"bucket without secret", []string{"--s3-bucket", "b", "--s3-access-key", "AK"}, nil, "--s3-bucket needs credentials"},
		{"secret and its file", s3ok, envOf("FILEFRAME_S3_SECRET_KEY_FILE", secretFile), "both --s3-secret-key"},
		{"endpoint not a URL", append([]string{"--s3-endpoint", "minio:9000"}, s3ok...), nil, "--s3-endpoint \"minio:9000\" must be an http or https URL"},
		{"endpoint with credentials", append([]string{"--s3-endpoint", "http://u:hunter2@minio:9000"}, s3ok...), nil, "without credentials"},
		{"endpoint without bucket", []string{"--s3-endpoint", "http://127.0.0.1:9000"}, nil, "--s3-endpoint is set but --s3-bucket"},
		{"bad prefix", append([]string{"--s3-prefix", "/x"}, s3ok...), nil, "--s3-prefix"},
		{"idle timeout too short", s3ok, envOf("FILEFRAME_S3_IDLE_TIMEOUT", "500ms"), "--s3-idle-timeout (FILEFRAME_S3_IDLE_TIMEOUT) must be 1s to 1h, got 500ms"},
		{"idle timeout not a duration", s3ok, envOf("FILEFRAME_S3_IDLE_TIMEOUT", "30"), "FILEFRAME_S3_IDLE_TIMEOUT"},
		{"idle timeout without bucket", []string{"--s3-idle-timeout", "5m"}, nil, "--s3-idle-timeout is set but --s3-bucket"},
		// The default's own value is a setting too: without a bucket it does nothing.
		{"default idle timeout without bucket", []string{"--s3-idle-timeout", "30s"}, nil, "--s3-idle-timeout is set but --s3-bucket"},
		{"default idle timeout variable without bucket", nil, envOf("FILEFRAME_S3_IDLE_TIMEOUT", "30s"), "--s3-idle-timeout is set but --s3-bucket"},
		{"redirect without S3", []string{"--download-redirect"}, nil, "--download-redirect (FILEFRAME_DOWNLOAD_REDIRECT) needs the files in S3"},
		{"bad path style", nil, envOf("FILEFRAME_S3_PATH_STYLE", "maybe"), "FILEFRAME_S3_PATH_STYLE: invalid value \"maybe\": want true or false"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := tt.env
			if env == nil {
				env = envOf()
			}
			_, err := parseForTest(tt.args, env)
			var ue *usageError
			if !errors.As(err, &ue) {
				t.Fatalf("error = %v, want a usage error", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %q, want it to contain %q", err, tt.want)
			}
			for _, secret := range []string{"hunter2", "topsecret"} {
				if strings.Contains(err.Error(), secret) {
					t.Errorf("error %q shows a secret", err)
				}
			}
		})
	}
}

// TestCLIBackendFlags checks that the admin commands take serve's backend
// flags and variables and validate them the same way.
func TestCLIBackendFlags(t *testing.T) {
	dir := t.TempDir()
	r := runCLI(t, "account", "create", "--data", dir, "--email", "a@example.com", "--s3-bucket", "b")
	if r.code != exitUsage || !strings.Contains(r.stderr, "--s3-bucket needs credentials") {
		t.Errorf("account create with a bucket but no keys: exit %d, stderr %q; want 2 and the reason", r.code, r.stderr)
	}
	r = runCLI(t, "migrate", "--data", dir, "--database-url", "postgres://ff:hunter2@127.0.0.1:1/ff?connect_timeout=2")
	if r.code != exitError || !strings.Contains(r.stderr, "opening the PostgreSQL database") || strings.Contains(r.stderr+r.stdout, "hunter2") {
		t.Errorf("migrate against an unreachable database: exit %d, stderr %q; want 1, a reason, no password", r.code, r.stderr)
	}
	for _, cmd := range [][]string{{"serve"}, {"account", "create"}, {"account", "set-plan"}, {"file", "add"}, {"key", "create"}, {"key", "revoke"}, {"migrate"}} {
		r := runCLI(t, append(cmd, "-h")...)
		for _, f := range []string{"-data", "-database-url", "-database-url-file", "-s3-bucket", "-s3-endpoint", "-s3-region",
			"-s3-access-key", "-s3-access-key-file", "-s3-secret-key", "-s3-secret-key-file", "-s3-path-style", "-s3-prefix", "-s3-idle-timeout"} {
			if !strings.Contains(r.stderr, "  "+f+" ") && !strings.Contains(r.stderr, "  "+f+"\n") {
				t.Errorf("fileframe %s -h does not list %s", strings.Join(cmd, " "), f)
			}
		}
	}
}

// TestOpenBlobsSaysItIsWaiting: an S3 server that takes connections and
// answers nothing costs three tries of the idle timeout to fail, so the
// operator is told, while it lasts, that the start waits on S3.
func TestOpenBlobsSaysItIsWaiting(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0") // accepted by the kernel, never answered
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	defer func(d time.Duration) { blobWaitNotice = d }(blobWaitNotice)
	blobWaitNotice = 200 * time.Millisecond

	st := Storage{Data: t.TempDir(), S3: s3.Config{
		Endpoint: "http://" + ln.Addr().String(), Region: s3.DefaultRegion, Bucket: "b",
		AccessKey: "AK", SecretKey: "SK", PathStyle: true, IdleTimeout: time.Second,
	}}
	var mu sync.Mutex
	var heard []string
	_, err = openBlobs(context.Background(), st, func(msg string) {
		mu.Lock()
		heard = append(heard, msg)
		mu.Unlock()
	})
	if err == nil {
		t.Fatal("openBlobs succeeded against a server that answers nothing")
	}
	notices := func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), heard...)
	}
	said := notices()
	if len(said) < 2 {
		t.Fatalf("said %q while waiting; want a notice every %s", said, blobWaitNotice)
	}
	if want := "the S3 server (http://" + ln.Addr().String() + ") has not answered"; !strings.Contains(said[0], want) || !strings.Contains(said[0], "--s3-idle-timeout 1s") {
		t.Errorf("notice %q; want it to name the server (%s) and the idle timeout", said[0], want)
	}
	time.Sleep(3 * blobWaitNotice)
	if later := notices(); len(later) != len(said) {
		t.Errorf("notices went on after openBlobs returned: %q", later[len(said):])
	}
}
