package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fileframe/fileframe/internal/blob/disk"
	"github.com/fileframe/fileframe/internal/blob/s3"
	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/postgres"
	"github.com/fileframe/fileframe/internal/service"
	"github.com/fileframe/fileframe/internal/sqlite"
)

// Storage says where metadata and file bytes are kept: PostgreSQL when
// DatabaseURL is set, else SQLite in Data; an S3 bucket when S3.Bucket is
// set, else a blob directory in Data. serve and every admin command take
// the same flags for it (addStorageFlags).
type Storage struct {
	// Data is the absolute data directory.
	Data string
	// DatabaseURL is a postgres:// URL. It may carry a password: it is
	// never printed or logged.
	DatabaseURL string
	// S3 configures the bucket; S3.SecretKey is never printed or logged.
	S3 s3.Config
}

// StoreKind names the metadata store: "postgres" or "sqlite".
func (st Storage) StoreKind() string {
	if st.DatabaseURL != "" {
		return "postgres"
	}
	return "sqlite"
}

// BlobsKind names the blob store: "s3" or "disk".
func (st Storage) BlobsKind() string {
	if st.S3.Bucket != "" {
		return "s3"
	}
	return "disk"
}

// describe says where the data is, for people, without any secret.
func (st Storage) describe() (store, blobs string) {
	dbPath, blobDir := dataPaths(st.Data)
	store, blobs = "SQLite "+dbPath, "disk "+blobDir
	if st.DatabaseURL != "" {
		store = "PostgreSQL"
		if u, err := url.Parse(st.DatabaseURL); err == nil && u.Host != "" {
			store += " at " + u.Host + u.Path // no user, password or query
		}
	}
	if st.S3.Bucket != "" {
		where := st.S3.Endpoint
		if where == "" {
			where = "AWS " + st.S3.Region
		}
		blobs = "S3 bucket " + st.S3.Bucket + " at " + where
		if st.S3.Prefix != "" {
			blobs += ", prefix " + st.S3.Prefix
		}
	}
	return store, blobs
}

// backendFlags are the flags that choose PostgreSQL and S3, as typed.
type backendFlags struct {
	databaseURL, databaseURLFile             string
	s3Endpoint, s3Bucket, s3Region, s3Prefix string
	s3AccessKey, s3AccessKeyFile             string
	s3SecretKey, s3SecretKeyFile             string
	s3PathStyle                              bool
	s3IdleTimeout                            givenDuration
}

// givenDuration is a duration flag that knows whether it was given, on the
// command line or in its variable: a value equal to the default is still a
// setting, and one without a bucket is a mistake to report.
type givenDuration struct {
	d     time.Duration
	given bool
}

func (g *givenDuration) String() string {
	if g == nil {
		return ""
	}
	return g.d.String()
}

func (g *givenDuration) Set(v string) error {
	d, err := time.ParseDuration(v)
	if err != nil {
		return err
	}
	g.d, g.given = d, true
	return nil
}

// addBackendFlags binds the backend flags to b and returns the variable
// that backs each flag.
func addBackendFlags(fs *flag.FlagSet, b *backendFlags) map[string]string {
	fs.StringVar(&b.databaseURL, "database-url", "", "PostgreSQL URL (postgres://user:password@host:5432/db?sslmode=...); empty: SQLite in --data")
	fs.StringVar(&b.databaseURLFile, "database-url-file", "", "file holding the PostgreSQL URL (instead of --database-url)")
	fs.StringVar(&b.s3Bucket, "s3-bucket", "", "S3 bucket for the file bytes (created when missing); empty: a blob directory in --data")
	fs.StringVar(&b.s3Endpoint, "s3-endpoint", "", "S3 server URL, e.g. http://127.0.0.1:9000 (default: AWS S3 of --s3-region)")
	fs.StringVar(&b.s3Region, "s3-region", "", "S3 region (default "+s3.DefaultRegion+")")
	fs.StringVar(&b.s3AccessKey, "s3-access-key", "", "S3 access key ID")
	fs.StringVar(&b.s3AccessKeyFile, "s3-access-key-file", "", "file holding the S3 access key ID (instead of --s3-access-key)")
	fs.StringVar(&b.s3SecretKey, "s3-secret-key", "", "S3 secret access key (prefer --s3-secret-key-file or the variable: flags show in ps)")
	fs.StringVar(&b.s3SecretKeyFile, "s3-secret-key-file", "", "file holding the S3 secret access key")
	fs.BoolVar(&b.s3PathStyle, "s3-path-style", false, "address the bucket as ENDPOINT/BUCKET (most self-hosted S3 servers need it)")
	fs.StringVar(&b.s3Prefix, "s3-prefix", "", "prefix of every object name, to share a bucket (e.g. fileframe/)")
	b.s3IdleTimeout.d = s3.DefaultIdleTimeout
	fs.Var(&b.s3IdleTimeout, "s3-idle-timeout", "the `duration` an S3 connection may go without the server taking or sending a byte before the try fails (raise it when a proxy on a slow link holds more than that much of an upload)")
	return map[string]string{
		"database-url":       "FILEFRAME_DATABASE_URL",
		"database-url-file":  "FILEFRAME_DATABASE_URL_FILE",
		"s3-bucket":          "FILEFRAME_S3_BUCKET",
		"s3-endpoint":        "FILEFRAME_S3_ENDPOINT",
		"s3-region":          "FILEFRAME_S3_REGION",
		"s3-access-key":      "FILEFRAME_S3_ACCESS_KEY",
		"s3-access-key-file": "FILEFRAME_S3_ACCESS_KEY_FILE",
		"s3-secret-key":      "FILEFRAME_S3_SECRET_KEY",
		"s3-secret-key-file": "FILEFRAME_S3_SECRET_KEY_FILE",
		"s3-path-style":      "FILEFRAME_S3_PATH_STYLE",
		"s3-prefix":          "FILEFRAME_S3_PREFIX",
		"s3-idle-timeout":    "FILEFRAME_S3_IDLE_TIMEOUT",
	}
}

// storage validates the backend flags and returns the Storage in the
// absolute data directory data. Messages name flags and variables, never
// the values of secrets.
func (b *backendFlags) storage(data string) (Storage, error) {
	st := Storage{Data: data}
	var err error
	if st.DatabaseURL, err = secretValue("database-url", b.databaseURL, b.databaseURLFile); err != nil {
		return st, err
	}
	if st.DatabaseURL != "" {
		u, err := url.Parse(st.DatabaseURL)
		if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
			// Not even the scheme is quoted: a mistyped URL may hold a password.
			return st, usagef("--database-url (FILEFRAME_DATABASE_URL) must be a postgres:// or postgresql:// URL, like postgres://fileframe:PASSWORD@db.internal:5432/fileframe?sslmode=verify-full")
		}
	}

	accessKey, err := secretValue("s3-access-key", b.s3AccessKey, b.s3AccessKeyFile)
	if err != nil {
		return st, err
	}
	secretKey, err := secretValue("s3-secret-key", b.s3SecretKey, b.s3SecretKeyFile)
	if err != nil {
		return st, err
	}
	if b.s3Bucket == "" {
		for _, f := range []struct {
			name string
			set  bool
		}{
			{"--s3-endpoint", b.s3Endpoint != ""}, {"--s3-region", b.s3Region != ""},
			{"--s3-access-key", accessKey != ""}, {"--s3-secret-key", secretKey != ""},
			{"--s3-prefix", b.s3Prefix != ""}, {"--s3-path-style", b.s3PathStyle},
			{"--s3-idle-timeout", b.s3IdleTimeout.given},
		} {
			if f.set {
				return st, usagef("%s is set but --s3-bucket (FILEFRAME_S3_BUCKET) is not; set the bucket to keep files in S3", f.name)
			}
		}
		return st, nil
	}
	if accessKey == "" || secretKey == "" {
		return st, usagef("--s3-bucket needs credentials: set --s3-access-key and --s3-secret-key (or FILEFRAME_S3_ACCESS_KEY and FILEFRAME_S3_SECRET_KEY, or their _FILE variants)")
	}
	if b.s3Endpoint != "" {
		u, err := url.Parse(b.s3Endpoint)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
			return st, usagef("--s3-endpoint %q must be an http or https URL without credentials, like https://s3.example.net", redactURL(b.s3Endpoint))
		}
	}
	if strings.HasPrefix(b.s3Prefix, "/") || strings.Contains(b.s3Prefix, "//") {
		return st, usagef("--s3-prefix %q must not start with a slash or contain an empty segment", b.s3Prefix)
	}
	if b.s3IdleTimeout.d < time.Second || b.s3IdleTimeout.d > time.Hour {
		return st, usagef("--s3-idle-timeout (FILEFRAME_S3_IDLE_TIMEOUT) must be 1s to 1h, got %s", b.s3IdleTimeout.d)
	}
	st.S3 = s3.Config{
		Endpoint:    b.s3Endpoint,
		Region:      b.s3Region,
		Bucket:      b.s3Bucket,
		AccessKey:   accessKey,
		SecretKey:   secretKey,
		PathStyle:   b.s3PathStyle,
		Prefix:      b.s3Prefix,
		IdleTimeout: b.s3IdleTimeout.d,
	}
	if st.S3.Region == "" {
		st.S3.Region = s3.DefaultRegion
	}
	return st, nil
}

// secretValue returns the value of a secret given either directly (flag
// --name or its variable) or in a file (--name-file or its variable), whose
// content loses one trailing newline. Both at once is an error.
func secretValue(name, value, file string) (string, error) {
	env := "FILEFRAME_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
	if value != "" && file != "" {
		return "", usagef("both --%s (%s) and --%s-file (%s_FILE) are set; use one", name, env, name, env)
	}
	if file == "" {
		return value, nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return "", usagef("--%s-file (%s_FILE): cannot read %s: %v", name, env, file, err)
	}
	v := strings.TrimSuffix(string(b), "\n")
	v = strings.TrimSuffix(v, "\r")
	if v == "" {
		return "", usagef("--%s-file (%s_FILE): %s is empty", name, env, file)
	}
	return v, nil
}

// redactURL returns raw with any password replaced, for messages.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	return u.Redacted()
}

// appStore is what serve and the admin commands need of a store: both
// internal/sqlite and internal/postgres provide it.
type appStore interface {
	fileframe.Store
	SchemaVersion(ctx context.Context) (int, error)
	Close() error
}

// openStore opens the metadata store of st, applying migrations. On
// SQLite, with create false, a missing database is an error rather than a
// new empty one, so a mistyped --data does not look like "no such account".
func openStore(ctx context.Context, st Storage, create bool) (appStore, error) {
	if st.DatabaseURL != "" {
		store, err := postgres.Open(ctx, st.DatabaseURL)
		if err != nil {
			// postgres.Open never quotes the URL; its errors are safe to show.
			return nil, fmt.Errorf("opening the PostgreSQL database: %w", err)
		}
		return store, nil
	}
	if st.Data == "" {
		return nil, usagef("--data must not be empty")
	}
	dbPath, _ := dataPaths(st.Data)
	if create {
		if err := os.MkdirAll(st.Data, 0o750); err != nil {
			return nil, fmt.Errorf("creating the data directory: %w", err)
		}
	} else if _, err := os.Stat(dbPath); errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("no database at %s: check --data, or create an account first", dbPath)
	}
	store, err := sqlite.Open(ctx, dbPath)
	if err != nil {
		return nil, fmt.Errorf("opening the database %s: %w", dbPath, err)
	}
	// The disk's reserve, in a ballast file beside the database, for the
	// writes that make room on a full disk (diskspace.Ballast).
	store.KeepReserve()
	return store, nil
}

// blobWaitNotice is how often openBlobs says that the S3 server has not
// answered yet: out of reach, it takes the SDK's three tries of the idle
// timeout each (90 s by default) to fail, and silence that long looks hung.
var blobWaitNotice = 10 * time.Second

// openBlobs opens the blob store of st: the S3 bucket, or the blob
// directory in the data directory. While the S3 server has not answered,
// waiting is called every blobWaitNotice with what to tell the operator.
func openBlobs(ctx context.Context, st Storage, waiting func(msg string)) (fileframe.Blobs, error) {
	if st.S3.Bucket != "" {
		start := time.Now()
		server := st.S3.Endpoint
		if server == "" {
			server = "AWS S3 in " + st.S3.Region
		}
		tick := time.NewTicker(blobWaitNotice)
		done := make(chan struct{})
		go func() {
			for {
				select {
				case <-done:
					return
				case <-tick.C:
					waiting(fmt.Sprintf("the S3 server (%s) has not answered for %s; still trying (three tries, each given up after --s3-idle-timeout %s of silence)",
						redactURL(server), time.Since(start).Round(time.Second), st.S3.IdleTimeout))
				}
			}
		}()
		blobs, err := s3.Open(ctx, st.S3)
		tick.Stop()
		close(done)
		if err != nil {
			return nil, fmt.Errorf("opening the S3 bucket %s: %w", st.S3.Bucket, err)
		}
		return blobs, nil
	}
	_, blobDir := dataPaths(st.Data)
	blobs, err := disk.Open(blobDir)
	if err != nil {
		return nil, fmt.Errorf("opening the blob store %s: %w", blobDir, err)
	}
	return blobs, nil
}

// storageFlags are --data and the backend flags of an admin command. Call
// open or openBlobs only after the flags are parsed.
type storageFlags struct {
	env     lookupEnv
	stderr  io.Writer
	fs      *flag.FlagSet
	data    string
	backend backendFlags
	vars    map[string]string
	st      *Storage
}

// storageFlags adds --data and the backend flags to an admin command, with
// the same names and variables as serve's.
func (c *CLI) storageFlags(fs *flag.FlagSet) *storageFlags {
	f := &storageFlags{env: c.Env, stderr: c.Stderr, fs: fs}
	fs.StringVar(&f.data, "data", defaultData, "data directory: the SQLite database and the blobs, unless PostgreSQL or S3 is set")
	f.vars = addBackendFlags(fs, &f.backend)
	f.vars["data"] = "FILEFRAME_DATA"
	return f
}

// quotas adds serve's --quota-* flags (and variables) to the command and
// returns where their values go, once parsed.
func (f *storageFlags) quotas() *Quotas {
	q := &Quotas{}
	for k, v := range quotaFlags(f.fs, q) {
		f.vars[k] = v
	}
	return q
}

// service returns the use cases (internal/service) on the command's store,
// with the blob store and serve's quotas q for a command that adds files
// (q nil: a command that needs neither, which then works without S3).
func (f *storageFlags) service(ctx context.Context, store fileframe.Store, q *Quotas) (*service.Service, error) {
	cfg := service.Config{Store: store}
	if q != nil {
		blobs, err := f.openBlobs(ctx)
		if err != nil {
			return nil, err
		}
		cfg.Blobs, cfg.Quotas = blobs, q.byPlan()
	}
	return service.New(cfg)
}

// storage applies the variables to the flags not given and validates them.
func (f *storageFlags) storage() (Storage, error) {
	if f.st != nil {
		return *f.st, nil
	}
	if err := applyEnv(f.fs, f.vars, f.env); err != nil {
		return Storage{}, err
	}
	if f.data == "" {
		return Storage{}, usagef("--data must not be empty")
	}
	abs, err := filepath.Abs(f.data)
	if err != nil {
		return Storage{}, fmt.Errorf("resolving --data: %w", err)
	}
	st, err := f.backend.storage(abs)
	if err != nil {
		return st, err
	}
	f.st = &st
	return st, nil
}

// openStore opens the command's store; see openStore.
func (f *storageFlags) openStore(ctx context.Context, create bool) (appStore, error) {
	st, err := f.storage()
	if err != nil {
		return nil, err
	}
	return openStore(ctx, st, create)
}

// openBlobs opens the command's blob store; see openBlobs.
func (f *storageFlags) openBlobs(ctx context.Context) (fileframe.Blobs, error) {
	st, err := f.storage()
	if err != nil {
		return nil, err
	}
	return openBlobs(ctx, st, func(msg string) { fmt.Fprintf(f.stderr, "fileframe: %s\n", msg) })
}
