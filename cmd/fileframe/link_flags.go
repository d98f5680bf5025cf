package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/fileframe/fileframe/internal/client"
	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/service"
)

// linkFlags are the flags of a file's link controls, shared by file add,
// file set, remote upload and remote set (the contract). Those of
// a change (set) also undo: --no-expiry, --no-password,
// --keep-when-ended.
type linkFlags struct {
	fs                             *flag.FlagSet
	change                         bool
	expires                        string
	maxDownloads                   int64
	oneTime                        bool
	password, passwordFile         string
	noExpiry, noPassword           bool
	removeWhenEnded, keepWhenEnded bool
	reveal                         string
}

// addLinkFlags adds the link flags to fs; change adds those that undo.
func addLinkFlags(fs *flag.FlagSet, change bool) *linkFlags {
	l := &linkFlags{fs: fs, change: change}
	fs.StringVar(&l.expires, "expires", "", "when the link ends: a `duration` from now (7d, 36h, 90m) or an RFC 3339 time (2030-01-02T15:04:05Z)")
	fs.Int64Var(&l.maxDownloads, "max-downloads", 0, "complete downloads the link allows (a `count`; 0: no limit)")
	fs.BoolVar(&l.oneTime, "one-time", false, "the first complete download ends the link (--max-downloads 1)")
	fs.StringVar(&l.password, "password", "", "visitors need this `password` (4 to 256 characters; seen in the process list: prefer --password-file)")
	fs.StringVar(&l.passwordFile, "password-file", "", "read the link's password from this `file` (its first line; - for stdin)")
	fs.BoolVar(&l.removeWhenEnded, "remove-when-ended", false, "remove the file once its link has ended")
	fs.StringVar(&l.reveal, "reveal", "", "what a password-protected link shows before the password: name (the file's name and size) or nothing")
	if change {
		fs.BoolVar(&l.noExpiry, "no-expiry", false, "the link never expires")
		fs.BoolVar(&l.noPassword, "no-password", false, "remove the link's password")
		fs.BoolVar(&l.keepWhenEnded, "keep-when-ended", false, "keep the file when its link has ended, so that it can be renewed")
	}
	return l
}

// parse turns the flags given into a LinkChange (nil fields: not given);
// contradictory flags are usage errors. stdin is read by --password-file -.
func (l *linkFlags) parse(stdin io.Reader) (service.LinkChange, error) {
	given := map[string]bool{}
	l.fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	for _, pair := range [][2]string{
		{"password", "password-file"}, {"password", "no-password"}, {"password-file", "no-password"},
		{"expires", "no-expiry"}, {"remove-when-ended", "keep-when-ended"},
	} {
		if given[pair[0]] && given[pair[1]] {
			return service.LinkChange{}, usagef("--%s and --%s cannot be used together", pair[0], pair[1])
		}
	}
	var c service.LinkChange
	if given["expires"] {
		if err := c.ParseExpiry(l.expires); err != nil {
			return c, usagef("--expires: %s", fileframe.ErrorMessage(err))
		}
	}
	if l.noExpiry {
		never := time.Time{}
		c.ExpiresAt = &never
	}
	if given["max-downloads"] {
		if l.maxDownloads < 0 {
			return c, usagef("--max-downloads %d: give a count of at least 1, or 0 for no limit", l.maxDownloads)
		}
		if l.oneTime && l.maxDownloads != 1 {
			return c, usagef("--one-time means --max-downloads 1, not %d", l.maxDownloads)
		}
		n := l.maxDownloads
		c.MaxDownloads = &n
	}
	if l.oneTime {
		one := int64(1)
		c.MaxDownloads = &one
	}
	switch {
	case given["password"]:
		if l.password == "" {
			return c, usagef("--password is empty: give the password, or use --no-password to remove it")
		}
		pw := l.password
		c.Password = &pw
	case given["password-file"]:
		pw, err := readPasswordFile(l.passwordFile, stdin)
		if err != nil {
			return c, err
		}
		c.Password = &pw
	case l.noPassword:
		none := ""
		c.Password = &none
	}
	if given["remove-when-ended"] || given["keep-when-ended"] {
		remove := l.removeWhenEnded && !l.keepWhenEnded
		c.RemoveWhenEnded = &remove
	}
	if given["reveal"] {
		var reveal string
		switch l.reveal {
		case "name":
			reveal = fileframe.RevealName
		case "nothing", "":
			reveal = fileframe.RevealNothing
		default:
			return c, usagef("--reveal %q: use name or nothing", l.reveal)
		}
		c.Reveal = &reveal
	}
	return c, nil
}

// clientLink turns a parsed change into the API client's, as the server
// takes it (a lifetime in Go's notation, which the server reads too).
func clientLink(c service.LinkChange) client.LinkChange {
	out := client.LinkChange{MaxDownloads: c.MaxDownloads, Password: c.Password, RemoveWhenEnded: c.RemoveWhenEnded, Reveal: c.Reveal}
	switch {
	case c.ExpiresIn != nil:
		out.ExpiresIn = c.ExpiresIn.String()
	case c.ExpiresAt != nil && c.ExpiresAt.IsZero():
		out.NoExpiry = true
	case c.ExpiresAt != nil:
		out.ExpiresAt = *c.ExpiresAt
	}
	return out
}

// readPasswordFile reads a password from the first line of the file at
// path (- for stdin); the line break that ends it is not part of it.
func readPasswordFile(path string, stdin io.Reader) (string, error) {
	var b []byte
	var err error
	if path == "-" {
		b, err = io.ReadAll(io.LimitReader(stdin, 64<<10))
	} else {
		b, err = os.ReadFile(path)
	}
	if err != nil {
		return "", fmt.Errorf("reading --password-file: %w", err)
	}
	pw, _, _ := strings.Cut(string(b), "\n")
	pw = strings.TrimSuffix(pw, "\r")
	if pw == "" {
		return "", usagef("--password-file %s: its first line is empty", path)
	}
	return pw, nil
}

// linkJSON is a link's controls and state in the --json output of the
// file commands: the API's link object (service.LinkStatus).
type linkJSON = service.LinkStatus

func newLinkJSON(f fileframe.File, now time.Time) linkJSON { return service.LinkStatusOf(f, now) }

// linkText says in words what a link's controls are, for the output
// without --json: "live; expires 2030-01-02T15:04:05Z; 0 of 1 downloads
// (one-time); password".
func linkText(l linkJSON) string {
	parts := []string{strings.ReplaceAll(string(l.State), "_", " ")}
	if l.ExpiresAt != nil {
		parts = append(parts, "expires "+l.ExpiresAt.Format(time.RFC3339))
	} else {
		parts = append(parts, "never expires")
	}
	if l.MaxDownloads != nil {
		s := fmt.Sprintf("%d of %d downloads", l.Downloads, *l.MaxDownloads)
		if *l.MaxDownloads == 1 {
			s += " (one-time)"
		}
		parts = append(parts, s)
	}
	if l.Password {
		p := "password"
		if l.Reveal == fileframe.RevealName {
			p += " (name shown)"
		}
		parts = append(parts, p)
	}
	if l.RemoveWhenEnded {
		parts = append(parts, "removed when ended")
	}
	return strings.Join(parts, "; ")
}
