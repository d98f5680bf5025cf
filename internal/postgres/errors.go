package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"unicode/utf8"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// SQLSTATE codes the store acts on
// (https://www.postgresql.org/docs/15/errcodes-appendix.html).
const (
	uniqueViolation          = "23505"
	foreignKeyViolation      = "23503"
	checkViolation           = "23514"
	notNullViolation         = "23502"
	characterNotInRepertoire = "22021" // invalid byte sequence, e.g. a NUL byte in text
	untranslatableChar       = "22P05"
	numericOutOfRange        = "22003"
	serializationFailure     = "40001"
	deadlockDetected         = "40P01"
	diskFull                 = "53100"
	tooManyConnections       = "53300"
	adminShutdown            = "57P01" // pg_terminate_backend, a fast shutdown
	crashShutdown            = "57P02"
	cannotConnectNow         = "57P03" // starting up, shutting down, recovering
)

// errUnavailable is what a request that needed the database gets while the
// database is out of reach: 503 with Retry-After (CodeUnavailable).
var errUnavailable = fileframe.Errorf(fileframe.CodeUnavailable,
	"The database is out of reach just now, so this request could not be completed. Please try again in a few seconds.")

// unreachable reports whether err means that the database could not be
// reached: no connection could be made (refused, timed out, the server
// starting or shutting down, out of connection slots), or the connection
// was lost mid-request (reset, closed, ended by the server), or it did
// not answer in time (a deadline passed: the store's own, see
// deadlineTracer, or the caller's). A cancelled context is not: that is
// the client going away.
func unreachable(err error) bool {
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		return true
	}
	if pe := pgError(err); pe != nil {
		switch pe.Code {
		case tooManyConnections, adminShutdown, crashShutdown, cannotConnectNow:
			return true
		}
		return strings.HasPrefix(pe.Code, "08") // connection_exception
	}
	if errors.Is(err, context.Canceled) {
		return false
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, pgconn.ErrConnClosed) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed)
}

// pgError returns the server error carried by err, or nil.
func pgError(err error) *pgconn.PgError {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe
	}
	return nil
}

// retryable reports whether err is transient: the transaction failed only
// because of another one running at the same time, and trying it again
// succeeds. A page_revisions_sha256_fkey violation is the race between a
// SavePage storing a revision of HTML another page's SavePage is pruning as
// unreferenced (see SavePage).
func retryable(err error) bool {
	pe := pgError(err)
	if pe == nil {
		return false
	}
	switch pe.Code {
	case serializationFailure, deadlockDetected:
		return true
	case foreignKeyViolation:
		return pe.ConstraintName == "page_revisions_sha256_fkey"
	}
	return false
}

// conflicts is the user-safe message of a unique violation, by constraint.
var conflicts = map[string]string{
	"accounts_pkey":      "An account with this ID already exists.",
	"page_tests_running": "The file already has a running test.",
	"accounts_email_key": "An account with this email already exists.",
	"files_pkey":         "A file with this ID already exists.",
	"files_slug_key":     "This link is already taken.",
	"api_keys_pkey":      "This key already exists.",
	"api_keys_hash_key":  "This key already exists.",
	"sessions_pkey":      "This session already exists.",
	"requests_pkey":      "A request with this ID already exists.",
	"requests_slug_key":  "This request link is already taken.",

	"webhook_endpoints_pkey": "A webhook with this ID already exists.",
}

// missing is the user-safe message of a foreign key violation that means a
// thing referred to does not exist, by constraint.
var missing = map[string]string{
	"files_account_id_fkey":    "Account not found.",
	"api_keys_account_id_fkey": "Account not found.",
	"api_keys_file_id_fkey":    "File not found.",
	"pages_file_id_fkey":       "File not found.",
	"sessions_account_id_fkey": "Account not found.",

	"account_appearances_account_id_fkey": "Account not found.",
	"file_appearances_file_id_fkey":       "File not found.",
	"finished_uploads_file_id_fkey":       "File not found.",
	"collection_files_file_id_fkey":       "File not found.",
	"collection_files_collection_id_fkey": "Collection not found.",
	"requests_account_id_fkey":            "Account not found.",
	"webhook_endpoints_account_id_fkey":   "Account not found.",
}

// wrap maps err to what the store returns: a *fileframe.Error as it is; "no
// rows", a unique violation, a foreign key violation of a missing referent,
// a value the schema does not allow and the database out of reach as an
// *fileframe.Error with a user-safe message, keeping the server error in
// the chain (for logs); any other error wrapped with the operation.
func wrap(op string, err error) error {
	var fe *fileframe.Error
	if err == nil || errors.As(err, &fe) {
		return err
	}
	if unreachable(err) {
		return fmt.Errorf("postgres: %s: %w: %w", op, errUnavailable, err)
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("postgres: %s: %w: %w", op, notFound("Record"), err)
	}
	if pe := pgError(err); pe != nil {
		switch pe.Code {
		case uniqueViolation:
			msg, ok := conflicts[pe.ConstraintName]
			if !ok {
				msg = "This value is already taken."
			}
			return fmt.Errorf("postgres: %s: %w: %w", op, fileframe.Errorf(fileframe.ECONFLICT, "%s", msg), err)
		case foreignKeyViolation:
			if msg, ok := missing[pe.ConstraintName]; ok {
				return fmt.Errorf("postgres: %s: %w: %w", op, fileframe.Errorf(fileframe.ENOTFOUND, "%s", msg), err)
			}
		case checkViolation, notNullViolation, characterNotInRepertoire, untranslatableChar, numericOutOfRange:
			return fmt.Errorf("postgres: %s: %w: %w", op, fileframe.Errorf(fileframe.EINVALID, "The store cannot hold this value."), err)
		case diskFull:
			return fmt.Errorf("postgres: %s: %w: %w", op, fileframe.Errorf(fileframe.CodeStorageFull,
				"The database server's disk is full: nothing new can be stored until the operator makes room."), err)
		}
	}
	return fmt.Errorf("postgres: %s: %w", op, err)
}

// storable reports whether every s can be a PostgreSQL text value: valid
// UTF-8 without NUL bytes. A lookup by a string that is not (a slug from a
// URL path, an ID from a JSON body) cannot match a stored row, so it is
// ENOTFOUND, as in internal/sqlite, rather than the server's encoding error.
func storable(ss ...string) bool {
	for _, s := range ss {
		if !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0 {
			return false
		}
	}
	return true
}

// notFound returns an ENOTFOUND error with a user-safe message.
func notFound(what string) error {
	return fileframe.Errorf(fileframe.ENOTFOUND, "%s not found.", what)
}
