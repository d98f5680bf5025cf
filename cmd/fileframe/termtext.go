package main

import (
	"io"
	"strings"
	"unicode/utf8"
)

// termText returns s with what a terminal would act on instead of showing
// replaced by U+FFFD: control characters (ESC starts the sequences that
// set a window's title, plant hidden links, clear or rewrite the screen)
// but tab and line feed, the C1 controls, and the bidirectional overrides
// and isolates that reorder what follows. A server's answer (a file name,
// a problem's detail) is printed through it: the server is not trusted to
// drive the user's terminal.
func termText(s string) string {
	if strings.IndexFunc(s, unsafeRune) < 0 {
		return s
	}
	return strings.Map(func(r rune) rune {
		if unsafeRune(r) {
			return utf8.RuneError
		}
		return r
	}, s)
}

func unsafeRune(r rune) bool {
	switch {
	case r == '\t' || r == '\n':
		return false
	case r < 0x20 || r == 0x7f || 0x80 <= r && r <= 0x9f:
		return true
	case 0x202a <= r && r <= 0x202e, 0x2066 <= r && r <= 0x2069, r == 0x200e || r == 0x200f || r == 0x061c:
		return true
	}
	return false
}

// termWriter writes through termText. A write that ends inside a UTF-8
// sequence keeps its last bytes for the next one, so that a C1 control
// split between two writes is still caught.
type termWriter struct {
	w    io.Writer
	tail []byte
}

func (t *termWriter) Write(p []byte) (int, error) {
	b := append(t.tail, p...)
	cut := len(b)
	// Keep an incomplete sequence at the end for the next write.
	for i := max(0, len(b)-utf8.UTFMax+1); i < len(b); i++ {
		if utf8.RuneStart(b[i]) && !utf8.FullRune(b[i:]) {
			cut = i
			break
		}
	}
	t.tail = append(t.tail[:0:0], b[cut:]...)
	if _, err := io.WriteString(t.w, termText(string(b[:cut]))); err != nil {
		return 0, err
	}
	return len(p), nil
}
