package web

import (
	"io"
	"net/http"
	"net/textproto"
	"strconv"
	"strings"
	"time"
)

// serveContent is http.ServeContent (no name: the caller sets the
// Content-Type) with one correction. A suffix range of length zero
// ("bytes=-0") selects nothing, and RFC 9110 §14.1.1 makes a range set
// without another range unsatisfiable: a 416. ServeContent answers it
// with an empty 206 whose Content-Range ends before it starts ("bytes
// 4097-4096/4097"; golang/go#81262). Such suffixes are dropped from the
// request's Range here; when none is left, the Range asks for the byte
// just past the end instead, which ServeContent answers with its own 416
// and "bytes */size".
func serveContent(w http.ResponseWriter, r *http.Request, modtime time.Time, content io.ReadSeeker) {
	if v := r.Header["Range"]; len(v) > 0 {
		if kept, dropped := withoutEmptySuffixes(v[0]); dropped {
			if kept == "" {
				if size, err := content.Seek(0, io.SeekEnd); err == nil {
					if _, err := content.Seek(0, io.SeekStart); err == nil {
						kept = "bytes=" + strconv.FormatInt(size, 10) + "-"
					}
				}
			}
			if kept != "" {
				r = r.WithContext(r.Context())
				r.Header = r.Header.Clone()
				r.Header["Range"] = []string{kept}
			}
		}
	}
	http.ServeContent(w, r, "", modtime, content)
}

// withoutEmptySuffixes returns the Range header value v without its
// suffix ranges of length zero, and whether it had any; kept is "" when
// nothing else is left. Values ServeContent would refuse (another unit,
// a malformed range) are returned as they are, for it to refuse.
func withoutEmptySuffixes(v string) (kept string, dropped bool) {
	const unit = "bytes="
	if !strings.HasPrefix(v, unit) {
		return v, false
	}
	var rest []string
	for spec := range strings.SplitSeq(v[len(unit):], ",") {
		trimmed := textproto.TrimString(spec)
		if trimmed == "" {
			continue
		}
		start, end, ok := strings.Cut(trimmed, "-")
		if ok && textproto.TrimString(start) == "" {
			if n, err := strconv.ParseInt(textproto.TrimString(end), 10, 64); err == nil && n == 0 {
				dropped = true
				continue
			}
		}
		rest = append(rest, spec)
	}
	if !dropped {
		return v, false
	}
	if len(rest) == 0 {
		return "", true
	}
	return unit + strings.Join(rest, ","), true
}
