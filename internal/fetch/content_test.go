package fetch

import (
	"slices"
	"testing"
)

// FuzzCheck: whatever the bytes, judging them neither panics nor hangs,
// and what is kept has a known type and extension.
func FuzzCheck(f *testing.F) {
	for _, file := range files(f) {
		f.Add(file.body)
	}
	f.Add(woffFile(f, ttfFile())[:200])
	f.Add([]byte("\xef\xbb\xbfWEBVTT"))
	f.Add([]byte("<svg onload=alert(1)>"))
	fe := New(Config{MaxImagePixels: 1 << 16}) // small decodes keep the fuzzer fast
	exts := []string{"png", "jpg", "gif", "webp", "bmp", "woff", "woff2", "ttf", "otf", "ttc", "mp4", "m4a", "webm", "ogg", "mp3", "wav", "flac", "vtt"}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, k := range []Kind{Image, Font, Media, Track} {
			c, err := fe.check(t.Context(), k, body)
			if err != nil {
				if p, ok := err.(*Problem); !ok || !p.Refused || p.Reason == "" {
					t.Fatalf("check(%s) error %#v, want a refusal with a reason", k, err)
				}
				continue
			}
			if !slices.Contains(exts, c.ext) || c.typ == "" {
				t.Fatalf("check(%s) kept %q as %q", k, c.typ, c.ext)
			}
		}
	})
}
