package fileframe

import (
	"context"
	"time"
)

// Link is what an owner controls about a file's public link /f/<slug>:
// how long it lives, how many complete downloads it allows, whether it
// asks for a password, and what happens to the bytes when it ends.
type Link struct {
	// ExpiresAt is when the link ends; zero: never.
	ExpiresAt time.Time
	// MaxDownloads is how many complete downloads the link allows; 0: no
	// limit, 1: a one-time link.
	MaxDownloads int64
	// RemoveWhenEnded has the periodic collector remove the file and its
	// bytes once the link has ended (the link still answers 410); without
	// it (the default) the file is kept, so that the owner can renew the
	// link.
	RemoveWhenEnded bool
	// PasswordHash is the PHC string of the link's password (package
	// password); "" when the link has none.
	PasswordHash string
	// Reveal is what a password-protected link shows before the password:
	// RevealNothing (the default) or RevealName (the file's name and size,
	// on the password page and in link previews).
	Reveal string
}

// What a password-protected link shows before its password (Link.Reveal).
const (
	RevealNothing = ""
	RevealName    = "name"
)

// LinkState says whether a link serves its file.
type LinkState string

const (
	LinkLive    LinkState = "live"
	LinkExpired LinkState = "expired"
	LinkUsedUp  LinkState = "used_up"
)

// LinkState is the state of f's link at now: expired from ExpiresAt on,
// used up once its complete downloads reach MaxDownloads.
func (f File) LinkState(now time.Time) LinkState {
	switch {
	case !f.Link.ExpiresAt.IsZero() && !now.Before(f.Link.ExpiresAt):
		return LinkExpired
	case f.Link.MaxDownloads > 0 && f.LinkDownloads >= f.Link.MaxDownloads:
		return LinkUsedUp
	}
	return LinkLive
}

// Limited reports whether f's downloads are counted against a limit as
// they happen (ClaimDownload), rather than only in the batched Downloads.
func (f File) Limited() bool { return f.Link.MaxDownloads > 0 }

// GoneLink is what remains of a link whose file the collector removed
// after the link ended: its /f/<slug> answers 410, not 404.
type GoneLink struct {
	Slug   string
	Reason LinkState // LinkExpired or LinkUsedUp
	At     time.Time
}

// LinkStore keeps the link controls of files and the downloads that count
// against them. Errors follow Store's conventions.
type LinkStore interface {
	// SetLink replaces the file's link controls. When MaxDownloads
	// changes, the count of downloads against it starts again at 0.
	SetLink(ctx context.Context, id FileID, l Link) (File, error)
	// ClaimDownload starts a download of the file that counts against its
	// limit: in one atomic step across every process sharing the store, it
	// records the claim (ID claim, lasting until now+ttl unless renewed)
	// if the link is live at now and its complete downloads and the
	// claims still running leave room for one more. An expired link is
	// CodeLinkExpired, a used-up one CodeLinkUsedUp, one whose last
	// allowed download is running CodeLinkBusy.
	ClaimDownload(ctx context.Context, id FileID, claim string, now time.Time, ttl time.Duration) error
	// RenewDownloadClaim moves a running claim's end to now+ttl; a missing
	// claim is ENOTFOUND.
	RenewDownloadClaim(ctx context.Context, claim string, now time.Time, ttl time.Duration) error
	// FinishDownload ends a claim: a completed download adds one to the
	// file's LinkDownloads; an incomplete one gives its room back. A
	// missing claim (expired and collected) is not an error, and a
	// completed one still counts.
	FinishDownload(ctx context.Context, id FileID, claim string, completed bool) error
	// EndedLinks lists up to limit files whose links have ended at now
	// (expired or used up) and are to be removed (RemoveWhenEnded).
	EndedLinks(ctx context.Context, now time.Time, limit int) ([]File, error)
	// DeleteEndedFile deletes the file as DeleteFile does and, in the same
	// transaction, records its slug as gone for reason.
	DeleteEndedFile(ctx context.Context, id FileID, reason LinkState, now time.Time) (File, error)
	// GoneLinkBySlug returns the gone link of a removed file.
	GoneLinkBySlug(ctx context.Context, slug string) (GoneLink, error)
}

// CheckClaim decides a ClaimDownload of f at now with running claims
// still running: nil when there is room for one more download. The stores
// call it inside the transaction that records the claim.
func CheckClaim(f File, running int64, now time.Time) error {
	switch f.LinkState(now) {
	case LinkExpired:
		return Errorf(CodeLinkExpired, "This link expired on %s.", f.Link.ExpiresAt.UTC().Format(time.RFC1123))
	case LinkUsedUp:
		return Errorf(CodeLinkUsedUp, "This link has been used up: it allowed %d complete download(s).", f.Link.MaxDownloads)
	}
	if f.Limited() && f.LinkDownloads+running >= f.Link.MaxDownloads {
		return Errorf(CodeLinkBusy, "The last download this link allows is running right now. If it does not finish, the link works again: try again in a minute.")
	}
	return nil
}
