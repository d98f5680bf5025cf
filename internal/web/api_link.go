package web

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/service"
)

// apiLink is a file's link controls and state in the API's answers (and
// MCP's): the "link" member of a File (service.LinkStatus).
type apiLink = service.LinkStatus

func newAPILink(f fileframe.File, now time.Time) apiLink { return service.LinkStatusOf(f, now) }

// linkFields are the members of a link object in a request.
var linkFields = []string{"expiresAt", "expiresIn", "maxDownloads", "password", "removeWhenEnded", "reveal"}

// parseLinkJSON reads the "link" member of a request body (PATCH
// /api/files/{id}) as a merge patch of the link's controls: a member left
// out stays as it is; null ends an expiry, a limit or a password. Every
// problem is collected in o.
func parseLinkJSON(o *jsonObject, raw json.RawMessage) service.LinkChange {
	var c service.LinkChange
	var fields map[string]json.RawMessage
	if jsonKind(raw) != "object" || json.Unmarshal(raw, &fields) != nil {
		o.problems = append(o.problems, fmt.Sprintf("link must be an object such as {\"expiresIn\": \"7d\", \"maxDownloads\": 1}, got %s", jsonKind(raw)))
		return c
	}
	bad := func(format string, args ...any) {
		o.problems = append(o.problems, "link."+fmt.Sprintf(format, args...))
	}
	str := func(name string) (string, bool) {
		raw := fields[name]
		if jsonKind(raw) != "string" {
			bad("%s must be a string or null, got %s", name, jsonKind(raw))
			return "", false
		}
		var v string
		if json.Unmarshal(raw, &v) != nil {
			bad("%s could not be decoded", name)
			return "", false
		}
		return v, true
	}
	for _, name := range slices.Sorted(maps.Keys(fields)) {
		raw := fields[name]
		null := isNull(raw)
		switch name {
		case "expiresAt":
			if _, both := fields["expiresIn"]; both {
				bad("expiresAt and link.expiresIn cannot come together: give one")
				continue
			}
			if null {
				never := time.Time{}
				c.ExpiresAt = &never
			} else if v, ok := str(name); ok {
				t, err := time.Parse(time.RFC3339, v)
				if err != nil {
					bad("expiresAt must be an RFC 3339 date and time such as 2030-01-02T15:04:05Z, or null for never, got %q", truncate(v, 40))
					continue
				}
				t = t.UTC()
				c.ExpiresAt = &t
			}
		case "expiresIn":
			if null {
				never := time.Time{}
				c.ExpiresAt = &never
			} else if v, ok := str(name); ok {
				d, err := service.ParseLifetime(v)
				if err != nil {
					bad("expiresIn must be a lifetime such as \"7d\", \"36h\" or \"90m\", got %q", truncate(v, 40))
					continue
				}
				c.ExpiresIn = &d
			}
		case "maxDownloads":
			var n int64
			if !null && (jsonKind(raw) != "number" || json.Unmarshal(raw, &n) != nil || n < 0) {
				bad("maxDownloads must be a whole number (1 for a one-time link), or 0 or null for no limit, got %s", truncate(string(bytes.TrimSpace(raw)), 40))
				continue
			}
			c.MaxDownloads = &n
		case "password":
			if null {
				none := ""
				c.Password = &none
			} else if v, ok := str(name); ok {
				if v == "" {
					bad("password is empty: give the new password, or null to remove it")
					continue
				}
				c.Password = &v
			}
		case "removeWhenEnded":
			b := false
			switch string(bytes.TrimSpace(raw)) {
			case "true":
				b = true
			case "false", "null":
			default:
				bad("removeWhenEnded must be true or false, got %s", jsonKind(raw))
				continue
			}
			c.RemoveWhenEnded = &b
		case "reveal":
			v := ""
			if !null {
				var ok bool
				if v, ok = str(name); !ok {
					continue
				}
			}
			if v != fileframe.RevealNothing && v != fileframe.RevealName {
				bad("reveal must be \"\" (nothing) or \"name\" (the file's name and size), got %q", truncate(v, 40))
				continue
			}
			c.Reveal = &v
		default:
			o.problems = append(o.problems, fmt.Sprintf("link.%s is not a field of a link (it takes %s)", truncate(name, 40), strings.Join(linkFields, ", ")))
		}
	}
	return c
}

// linkPasswordHeader carries a new file's link password on POST
// /api/files, so that it is not written in URLs and their logs.
const linkPasswordHeader = "Fileframe-Link-Password"

// parseLinkQuery reads the link controls of an upload: the query
// parameters expiresIn, expiresAt, maxDownloads, removeWhenEnded and
// reveal, and the password in the Fileframe-Link-Password header.
func parseLinkQuery(r *http.Request) (service.LinkChange, error) {
	return parseLinkValues(r.URL.Query(), r.Header.Values(linkPasswordHeader), linkPasswordHeader)
}

// parseLinkValues reads link controls from q (and passwords, the values
// of the password header): the query of an upload, the metadata of a tus
// upload.
func parseLinkValues(q url.Values, passwords []string, passwordFrom string) (service.LinkChange, error) {
	var c service.LinkChange
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	one := func(name string) (string, bool) {
		vs, ok := q[name]
		if !ok {
			return "", false
		}
		if len(vs) > 1 {
			bad("%s is given %d times; give it once", name, len(vs))
			return "", false
		}
		return vs[0], true
	}
	expiresIn, hasIn := one("expiresIn")
	expiresAt, hasAt := one("expiresAt")
	switch {
	case hasIn && hasAt:
		bad("expiresIn and expiresAt cannot come together: give one")
	case hasIn:
		if d, err := service.ParseLifetime(expiresIn); err != nil {
			bad("expiresIn must be a lifetime such as 7d, 36h or 90m, got %q", truncate(expiresIn, 40))
		} else {
			c.ExpiresIn = &d
		}
	case hasAt:
		if t, err := time.Parse(time.RFC3339, expiresAt); err != nil {
			bad("expiresAt must be an RFC 3339 date and time such as 2030-01-02T15:04:05Z, got %q", truncate(expiresAt, 40))
		} else {
			t = t.UTC()
			c.ExpiresAt = &t
		}
	}
	if v, ok := one("maxDownloads"); ok {
		if n, err := strconv.ParseInt(v, 10, 64); err != nil || n < 0 {
			bad("maxDownloads must be a whole number (1 for a one-time link, 0 for no limit), got %q", truncate(v, 40))
		} else {
			c.MaxDownloads = &n
		}
	}
	if v, ok := one("removeWhenEnded"); ok {
		if b, err := strconv.ParseBool(v); err != nil {
			bad("removeWhenEnded must be true or false, got %q", truncate(v, 40))
		} else {
			c.RemoveWhenEnded = &b
		}
	}
	if v, ok := one("reveal"); ok {
		if v == "nothing" {
			v = fileframe.RevealNothing
		}
		if v != fileframe.RevealNothing && v != fileframe.RevealName {
			bad("reveal must be name or nothing, got %q", truncate(v, 40))
		} else {
			c.Reveal = &v
		}
	}
	switch {
	case len(passwords) > 1:
		bad("%s is given %d times; give it once", passwordFrom, len(passwords))
	case len(passwords) == 1 && passwords[0] == "":
		bad("%s is empty: give the password, or leave it out", passwordFrom)
	case len(passwords) == 1:
		pw := passwords[0]
		c.Password = &pw
	}
	if len(problems) > 0 {
		return c, fileframe.Errorf(fileframe.CodeInvalidField, "%s. Fix the link's settings and send the request again.", strings.Join(problems, "; "))
	}
	return c, nil
}

// setLinkOp changes the link controls of f, one of the caller's files,
// and describes the file as it is then: PATCH /api/files/{id} and MCP's
// set_link.
func (s *Server) setLinkOp(ctx context.Context, c apiCaller, f fileframe.File, change service.LinkChange) (apiFile, error) {
	changed, err := s.svc.SetLink(ctx, c.account, f.ID, change)
	if fileframe.IsNotFound(err) {
		return apiFile{}, fileNotFound(f.ID)
	} else if err != nil {
		return apiFile{}, err
	}
	s.logCtx(ctx).Info("api: link changed", "key_id", c.key.ID, "file_id", f.ID)
	return s.fileOp(ctx, c, changed)
}
