package fileframe

import (
	"errors"
	"fmt"
)

// Error codes. Domain codes (ENOTFOUND, ECONFLICT, EINVALID, EINTERNAL) are
// returned by stores and blob stores; the API codes are the stable snake_case
// values of the problem+json "code" member (DESIGN.md, "Error body").
const (
	ENOTFOUND = "not_found"
	ECONFLICT = "conflict"
	EINVALID  = "invalid"
	EINTERNAL = "internal"

	CodeUnauthorized         = "unauthorized"
	CodePlanRequired         = "plan_required"
	CodeRateLimited          = "rate_limited"
	CodeUnsupportedMediaType = "unsupported_media_type"
	// CodeUnsupportedEncoding is the code of a request body sent with a
	// Content-Encoding (gzip, br, …): bodies are stored as they arrive,
	// so an encoded one would be stored still encoded.
	CodeUnsupportedEncoding = "unsupported_content_encoding"
	CodeBodyTooLarge        = "body_too_large"
	CodeInvalidJSON         = "invalid_json"
	CodeInvalidField        = "invalid_field"
	CodeFileIDRequired      = "file_id_required"
	CodeFileIDNotAllowed    = "file_id_not_allowed"
	CodeFileNotFound        = "file_not_found"
	CodeHTMLRequired        = "html_required"
	CodeHTMLTooLarge        = "html_too_large"
	CodeHTMLInvalid         = "html_invalid"
	CodeMethodNotAllowed    = "method_not_allowed"
	// CodeQuotaExceeded is the code of an upload that does not fit in
	// what is left of its account's storage; CodeFileTooLarge of a file
	// larger than its plan takes.
	CodeQuotaExceeded = "quota_exceeded"
	CodeFileTooLarge  = "file_too_large"
	// CodeFileCountExceeded is the code of an upload beyond the number of
	// files its account's plan may keep; CodeTooManyFiles of a request that
	// sends more files than one request may.
	CodeFileCountExceeded = "file_count_exceeded"
	CodeTooManyFiles      = "too_many_files"
	// CodeUploadIncomplete is the code of an upload whose body ended before
	// its bytes did (a connection cut, a body shorter than its
	// Content-Length); CodeRequestTimeout of one whose client stopped
	// sending. Both are the client's doing, never a server fault.
	CodeUploadIncomplete = "upload_incomplete"
	CodeRequestTimeout   = "request_timeout"
	// CodeBusy is the code of work refused because the server is doing as
	// much of it at once as it allows (checking pages, hashing passwords):
	// 503 with Retry-After, worth trying again in a few seconds.
	CodeBusy = "busy"
	// CodeUnavailable is the code of work that could not be done because
	// a service the server depends on, its database or its S3 server, is
	// out of reach (or failed on its side, or the connection to it was lost
	// mid-request): 503 with Retry-After,
	// worth trying again in a few seconds. Not the client's fault, and not
	// a fault of the server's code: the operator must bring it back.
	CodeUnavailable = "unavailable"
	// CodeStorageFull is the code of a write refused because the disk
	// holding the data is full (507 Insufficient Storage): not the
	// client's fault, and not a fault of the server's code either.
	CodeStorageFull = "insufficient_storage"
	// CodeFormExpired is the code of a form whose CSRF token is missing or
	// not the session's (or that came from another site).
	CodeFormExpired = "form_expired"
	// CodeForbidden is the code of a request that may not be answered as
	// asked (a custom page asked for as anything but a frame).
	CodeForbidden = "forbidden"
	// CodeMisdirected is the code of a request sent to this server under
	// a name that is not its origin's (421 Misdirected Request).
	CodeMisdirected = "misdirected"
	// CodeKeyScope is the code of a request that the API key may not make:
	// a page-bound key that uploads, renames or deletes files.
	CodeKeyScope = "key_scope"
	// CodeRevisionNotFound is the code of a page revision that is not
	// kept (or a file without a page).
	CodeRevisionNotFound = "revision_not_found"
	// The codes of the Idempotency-Key header: a malformed key; a key
	// reused for a different request; a key whose first request is still
	// running.
	CodeIdempotencyKeyInvalid    = "invalid_idempotency_key"
	CodeIdempotencyKeyReused     = "idempotency_key_reused"
	CodeIdempotencyKeyInProgress = "idempotency_in_progress"
	// The codes of a link that does not serve its file: expired, used up
	// (its downloads reached the limit), or busy (its last allowed
	// download is running), and of a wrong or missing link password.
	CodeLinkExpired      = "link_expired"
	CodeLinkUsedUp       = "link_used_up"
	CodeLinkBusy         = "link_busy"
	CodePasswordRequired = "password_required"
	// The codes of collections (collection.go): an ID that names no
	// collection of the account; a file that cannot be an item (a
	// collection: no nesting); a collection at MaxCollectionFiles items.
	CodeCollectionNotFound = "collection_not_found"
	CodeNotCollectable     = "not_collectable"
	CodeCollectionFull     = "collection_full"
	// The codes of a file request that takes no more files: closed by its
	// owner or expired; every file it may receive received (or being
	// sent); or a file that does not fit in what is left of its size.
	CodeRequestClosed   = "request_closed"
	CodeRequestFull     = "request_full"
	CodeRequestTooLarge = "request_too_large"
	// CodeRequestNotFound is the code of a request that is not the
	// account's.
	CodeRequestNotFound = "request_not_found"
	// CodeWebhookNotFound and CodeDeliveryNotFound are the codes of a
	// webhook endpoint, or a delivery, that is not the account's.
	CodeWebhookNotFound  = "webhook_not_found"
	CodeDeliveryNotFound = "delivery_not_found"
	// CodeWebhookURLRefused is the code of an endpoint URL the SSRF rules
	// refuse: not https, a loopback, private or link-local address (or a
	// name that resolves to one), credentials in the URL.
	CodeWebhookURLRefused = "webhook_url_refused"
	// CodeDeliveryBusy is the code of "send again" on a delivery an
	// instance is sending at that moment.
	CodeDeliveryBusy = "delivery_busy"
	// CodeWebhookLimit is the code of an endpoint beyond MaxWebhooks.
	CodeWebhookLimit = "webhook_limit"

	// A/B tests of pages (PageTest): a test that is not the file's, one
	// started while another runs, one on a page that is not published, and
	// ending one that has ended.
	CodeTestNotFound      = "test_not_found"
	CodeTestRunning       = "test_running"
	CodeTestNeedsLivePage = "page_not_published"
	CodeTestEnded         = "test_ended"
)

// Error is the one error type of the service: a stable code and a message
// that is safe to show to the user. Internal causes are never put in Message;
// wrap them with fmt.Errorf and they are logged, not shown.
type Error struct {
	Code    string
	Message string
	// Title is a short heading for Message where a page shows the error
	// (e.g. "File not found"); empty for the code's own.
	Title string
}

// WithTitle returns e with a heading for the page that shows it.
func (e *Error) WithTitle(title string) *Error {
	e.Title = title
	return e
}

// Error implements the error interface.
func (e *Error) Error() string {
	return fmt.Sprintf("fileframe error: code=%s message=%s", e.Code, e.Message)
}

// Errorf returns an *Error with the given code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of the first *Error in err's chain, EINTERNAL for
// any other non-nil error, and "" for nil.
func ErrorCode(err error) string {
	var e *Error
	if err == nil {
		return ""
	} else if errors.As(err, &e) {
		return e.Code
	}
	return EINTERNAL
}

// ErrorMessage returns the user-safe message of the first *Error in err's
// chain, and a generic message for any other error.
func ErrorMessage(err error) string {
	var e *Error
	if err == nil {
		return ""
	} else if errors.As(err, &e) {
		return e.Message
	}
	return "Internal error."
}

// IsNotFound reports whether err carries the ENOTFOUND code.
func IsNotFound(err error) bool { return ErrorCode(err) == ENOTFOUND }

// ErrorTitle returns the Title of the first *Error in err's chain, or "".
func ErrorTitle(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Title
	}
	return ""
}
