// Package s3 implements fileframe.Blobs on S3-compatible object storage
// (AWS S3, MinIO, Ceph RGW, Garage, versitygw, …): the blob store that
// several instances share.
//
// Blobs are content-addressed like on local disk: the blob whose key (hex
// SHA-256) is abcdef… is the object <prefix>ab/cd/abcdef…. Put streams into a
// temporary object <prefix>tmp/<random> while hashing, then copies it to its
// place on the server (no bytes go through this process twice) and deletes
// the temp, so an object at a blob's place is always complete. A crash leaves
// at most a temp object or an unfinished multipart upload under tmp/, which
// CleanTemp removes once it is an hour old.
//
// Open hands out a reader that fetches bytes lazily with ranged GETs, so
// http.ServeContent answers a Range request by fetching only that range.
//
// The client is aws-sdk-go-v2, the SDK the tusd S3 store is built on, so the
// service carries one S3 client.
package s3

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/feature/s3/manager"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// Defaults and limits of Config.
const (
	DefaultRegion     = "us-east-1"
	DefaultPartSize   = 8 << 20
	DefaultPresignTTL = 5 * time.Minute

	// MinPartSize is the smallest part S3 accepts in a multipart upload
	// (all parts but the last).
	MinPartSize = manager.MinUploadPartSize
	// maxPresignTTL is the longest validity a SigV4 presigned URL can have.
	maxPresignTTL = 7 * 24 * time.Hour
)

// uploadConcurrency is how many parts of one Put are sent at once. The
// uploader holds at most uploadConcurrency+2 parts in memory per Put: one
// buffer per sender, one being filled, and the first part, which it reads
// before it knows whether the body needs a multipart upload at all. With
// the default 8 MiB parts that is 32 MiB per Put in progress.
const uploadConcurrency = 2

// Server-side copy limits: CopyObject copies at most 5 GiB; larger objects
// are copied part by part with UploadPartCopy, in at most 10,000 parts of at
// most 5 GiB (https://docs.aws.amazon.com/AmazonS3/latest/API/API_CopyObject.html).
const (
	maxCopyObjectSize = 5 << 30
	copyPartSize      = 1 << 30
	maxParts          = int64(manager.MaxUploadParts)
)

// staleTempAge is how old a temp object, or the last part of an unfinished
// multipart upload, must be before Open removes it as a crash leftover.
const staleTempAge = time.Hour

// cleanupTimeout bounds the best-effort removal of a failed Put's temp
// object, which runs even when the Put's own context is cancelled.
const cleanupTimeout = 30 * time.Second

// Config says where the blobs are kept. Bucket, AccessKey and SecretKey are
// required; every other field has a default.
type Config struct {
	// Endpoint is the server's base URL, such as http://127.0.0.1:9000;
	// empty means AWS S3 of Region.
	Endpoint string
	// Region is the bucket's region, DefaultRegion when empty.
	Region string
	// Bucket is created by Open when it does not exist.
	Bucket string
	// AccessKey and SecretKey are the static credentials to sign with.
	AccessKey, SecretKey string
	// PathStyle addresses the bucket as Endpoint/Bucket/key instead of
	// Bucket.host/key; most self-hosted servers need it.
	PathStyle bool
	// Prefix is prepended to every object name, so one bucket can hold
	// other data, or several stores, side by side. A Prefix without a
	// trailing slash gets one ("blobs" keeps blobs under "blobs/").
	Prefix string
	// PartSize is the size of the parts a Put uploads a large body in,
	// DefaultPartSize when 0, at least MinPartSize. It sets both the memory
	// a Put holds (see Store.Put) and the largest blob: PartSize × 10,000
	// (78 GiB at 8 MiB), since a stream's size is not known in advance.
	PartSize int64
	// PresignTTL is how long a URL from PresignGet stays valid,
	// DefaultPresignTTL when 0, at most 7 days.
	PresignTTL time.Duration
	// HTTPClient sends the requests; nil means the SDK's default client
	// with IdleTimeout.
	HTTPClient *http.Client
	// IdleTimeout is how long a connection to the server may send and
	// receive nothing, while a request waits on it, before the request
	// fails (and is tried again, as the SDK tries every request three
	// times), DefaultIdleTimeout when 0. It applies when HTTPClient is
	// nil.
	IdleTimeout time.Duration
}

// Store keeps blobs in an S3 bucket. It implements fileframe.Blobs and is
// safe for concurrent use, also by several processes and instances sharing
// the bucket.
type Store struct {
	client    *s3.Client
	uploader  *manager.Uploader
	presigner *s3.PresignClient
	bucket    string
	prefix    string // "" or ending in "/"
	partSize  int64
	now       func() time.Time

	// Server-side copy limits; fields so that tests can take the part-copy
	// path without a 5 GiB object.
	maxCopyObjectSize int64
	copyPartSize      int64
}

var _ fileframe.Blobs = (*Store)(nil)

// Open connects to the bucket of cfg, creating it when it does not exist,
// removes temp objects left by a crash more than an hour ago (CleanTemp),
// and returns the store.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	return open(ctx, cfg, time.Now)
}

func open(ctx context.Context, cfg Config, now func() time.Time) (*Store, error) {
	s, err := newStore(cfg)
	if err != nil {
		return nil, err
	}
	s.now = now
	if err := s.ensureBucket(ctx, cfg.Region); err != nil {
		return nil, err
	}
	if _, err := s.CleanTemp(ctx, staleTempAge); err != nil {
		return nil, err
	}
	return s, nil
}

// newStore validates cfg and builds the store without touching the server.
func newStore(cfg Config) (*Store, error) {
	if cfg.Bucket == "" {
		return nil, errors.New("s3: no bucket configured")
	}
	if cfg.AccessKey == "" || cfg.SecretKey == "" {
		return nil, errors.New("s3: access key and secret key are required")
	}
	if cfg.Region == "" {
		cfg.Region = DefaultRegion
	}
	if cfg.PartSize == 0 {
		cfg.PartSize = DefaultPartSize
	}
	if cfg.PartSize < MinPartSize {
		return nil, fmt.Errorf("s3: part size %d is below the minimum of %d bytes", cfg.PartSize, MinPartSize)
	}
	if cfg.PresignTTL == 0 {
		cfg.PresignTTL = DefaultPresignTTL
	}
	if cfg.PresignTTL < 0 || cfg.PresignTTL > maxPresignTTL {
		return nil, fmt.Errorf("s3: presign TTL %v is not between 0 and %v", cfg.PresignTTL, maxPresignTTL)
	}
	prefix := cfg.Prefix
	if strings.HasPrefix(prefix, "/") || strings.Contains(prefix, "//") {
		return nil, fmt.Errorf("s3: prefix %q must not start with a slash or contain an empty segment", prefix)
	}
	if prefix != "" && !strings.HasSuffix(prefix, "/") {
		prefix += "/"
	}

	opts := s3.Options{
		Region:       cfg.Region,
		Credentials:  aws.NewCredentialsCache(credentials.NewStaticCredentialsProvider(cfg.AccessKey, cfg.SecretKey, "")),
		UsePathStyle: cfg.PathStyle,
	}
	if cfg.HTTPClient != nil {
		opts.HTTPClient = cfg.HTTPClient
	} else {
		if cfg.IdleTimeout == 0 {
			cfg.IdleTimeout = DefaultIdleTimeout
		}
		if cfg.IdleTimeout < 0 {
			return nil, fmt.Errorf("s3: idle timeout %v is negative", cfg.IdleTimeout)
		}
		opts.HTTPClient = idleClient(cfg.IdleTimeout)
	}
	if cfg.Endpoint != "" {
		u, err := url.Parse(cfg.Endpoint)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("s3: endpoint %q is not an http or https URL", cfg.Endpoint)
		}
		opts.BaseEndpoint = aws.String(cfg.Endpoint)
		// Since 2025 the SDK adds CRC checksums to every upload and asks
		// for them on downloads by default, which many S3-compatible
		// servers reject or mishandle
		// (https://github.com/aws/aws-sdk-go-v2/discussions/2960). Send
		// them only where an operation requires them: Put checks content
		// by its own SHA-256, and SigV4 already signs each request.
		opts.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
		opts.ResponseChecksumValidation = aws.ResponseChecksumValidationWhenRequired
	}
	client := s3.New(opts)
	return &Store{
		client: client,
		uploader: manager.NewUploader(client, func(u *manager.Uploader) {
			u.PartSize = cfg.PartSize
			u.Concurrency = uploadConcurrency
			// Put aborts a failed multipart upload itself (removeTemp),
			// with a context of its own, and in the background when the
			// server is out of reach: the uploader's abort, with the
			// Put's context, made a Put whose parts met an outage wait
			// for three more tries before it could answer.
			u.LeavePartsOnError = true
			if opts.RequestChecksumCalculation != aws.RequestChecksumCalculationUnset {
				// The uploader has its own copy of this setting
				// (https://github.com/aws/aws-sdk-go-v2/issues/3007).
				u.RequestChecksumCalculation = opts.RequestChecksumCalculation
			}
		}),
		presigner:         s3.NewPresignClient(client, s3.WithPresignExpires(cfg.PresignTTL)),
		bucket:            cfg.Bucket,
		prefix:            prefix,
		partSize:          cfg.PartSize,
		now:               time.Now,
		maxCopyObjectSize: maxCopyObjectSize,
		copyPartSize:      copyPartSize,
	}, nil
}

// ensureBucket creates the bucket unless it exists. It asks first rather
// than creating blindly because credentials limited to one bucket's objects
// usually may not call CreateBucket.
func (s *Store) ensureBucket(ctx context.Context, region string) error {
	_, err := s.client.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: &s.bucket})
	if err == nil {
		return nil
	} else if !isNotFound(err) {
		return fmt.Errorf("s3: bucket %s: %w", s.bucket, err)
	}
	in := &s3.CreateBucketInput{Bucket: &s.bucket}
	if region != "" && region != DefaultRegion {
		// us-east-1 is the one region that must not be named here.
		in.CreateBucketConfiguration = &types.CreateBucketConfiguration{
			LocationConstraint: types.BucketLocationConstraint(region),
		}
	}
	_, err = s.client.CreateBucket(ctx, in)
	var owned *types.BucketAlreadyOwnedByYou
	if err != nil && !errors.As(err, &owned) { // owned: another instance won the race
		return fmt.Errorf("s3: create bucket %s: %w", s.bucket, err)
	}
	return nil
}

// Stat returns the blob's size and modification time. An unknown key is an
// ENOTFOUND error, an invalid one EINVALID.
func (s *Store) Stat(ctx context.Context, key string) (fileframe.BlobInfo, error) {
	name, err := s.objectName(key)
	if err != nil {
		return fileframe.BlobInfo{}, err
	}
	out, err := s.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &s.bucket, Key: &name})
	if err != nil {
		return fileframe.BlobInfo{}, mapError("stat", err)
	}
	return fileframe.BlobInfo{
		Key:     key,
		Size:    aws.ToInt64(out.ContentLength),
		ModTime: aws.ToTime(out.LastModified),
	}, nil
}

// Delete removes the blob; deleting a missing blob is not an error. An
// invalid key is an EINVALID error.
func (s *Store) Delete(ctx context.Context, key string) error {
	name, err := s.objectName(key)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := s.deleteObject(ctx, name); err != nil {
		return opError("delete", err)
	}
	return nil
}

// deleteObject deletes the object name; a missing object is not an error
// (S3 itself answers 204, some servers NoSuchKey).
func (s *Store) deleteObject(ctx context.Context, name string) error {
	_, err := s.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &s.bucket, Key: &name})
	if err != nil && !isNotFound(err) {
		return err
	}
	return nil
}

// Ping reports whether the bucket is reachable with the store's
// credentials (HeadBucket).
func (s *Store) Ping(ctx context.Context) error {
	if _, err := s.client.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: &s.bucket}); err != nil {
		return opError("ping", err)
	}
	return nil
}

// objectName returns the object of the blob with key, or an EINVALID error
// if key is not 64 lowercase hex digits. Validating before any name is
// built keeps a key from naming a temp object, or anything outside Prefix.
func (s *Store) objectName(key string) (string, error) {
	if !fileframe.IsBlobKey(key) {
		return "", fileframe.Errorf(fileframe.EINVALID, "Invalid blob key.")
	}
	return s.prefix + key[0:2] + "/" + key[2:4] + "/" + key, nil
}

// keyOf returns the blob key of the object name, or "" if name is not at a
// blob's content-addressed place under the prefix.
func (s *Store) keyOf(name string) string {
	rest, ok := strings.CutPrefix(name, s.prefix)
	if !ok || len(rest) != 2+1+2+1+64 || rest[2] != '/' || rest[5] != '/' {
		return ""
	}
	key := rest[6:]
	if !fileframe.IsBlobKey(key) || rest[0:2] != key[0:2] || rest[3:5] != key[2:4] {
		return ""
	}
	return key
}

// tempPrefix is where Put's temp objects go.
func (s *Store) tempPrefix() string { return s.prefix + "tmp/" }

// isNotFound reports whether err is the server saying that the object (or
// bucket, for HeadBucket) does not exist. HEAD responses have no body, so
// the SDK can tell only their status: 404 becomes *types.NotFound.
func isNotFound(err error) bool {
	var (
		noSuchKey *types.NoSuchKey
		notFound  *types.NotFound
		apiErr    smithy.APIError
	)
	switch {
	case errors.As(err, &noSuchKey), errors.As(err, &notFound):
		return true
	case errors.As(err, &apiErr):
		code := apiErr.ErrorCode()
		return code == "NoSuchKey" || code == "NotFound"
	}
	return false
}

// mapError turns the server's "no such object" into ENOTFOUND and wraps any
// other error as opError does.
func mapError(op string, err error) error {
	if isNotFound(err) {
		return fileframe.Errorf(fileframe.ENOTFOUND, "Blob not found.")
	}
	return opError(op, err)
}

// errUnavailable is what a request that needed the S3 server gets while it
// is out of reach: 503 with Retry-After (CodeUnavailable).
var errUnavailable = fileframe.Errorf(fileframe.CodeUnavailable,
	"The file storage is out of reach just now, so this request could not be completed. Please try again in a few seconds.")

// WrapError is opError for the S3 errors of another client of the bucket
// (tusd's s3store, for the uploads under UploadsPrefix): an error of
// Client's whose text says the server was out of reach is CodeUnavailable
// even when its chain was lost on the way.
func WrapError(op string, err error) error {
	if !unreachable(err) && strings.Contains(err.Error(), outOfReachMark) {
		return fmt.Errorf("s3: %s: %w: %w", op, errUnavailable, err)
	}
	return opError(op, err)
}

// opError wraps err with the operation, as CodeUnavailable when the server
// is out of reach (unreachable).
func opError(op string, err error) error {
	if unreachable(err) {
		return fmt.Errorf("s3: %s: %w: %w", op, errUnavailable, err)
	}
	return fmt.Errorf("s3: %s: %w", op, err)
}

// unreachable reports whether err, after the SDK's own retries, means that
// the S3 server is out of reach or failing on its side: a request that
// could not be sent or whose answer could not be read (refused, reset,
// timed out), or an answer of 5xx (InternalError, SlowDown,
// ServiceUnavailable). The end of the caller's own context is not: that is
// the client going away.
func unreachable(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var (
		send *smithyhttp.RequestSendError
		resp *smithyhttp.ResponseError
		ne   net.Error
	)
	switch {
	case errors.As(err, &send), errors.As(err, &ne):
		return true
	case errors.As(err, &resp):
		return resp.HTTPStatusCode() >= 500
	}
	return false
}
