package thumb

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"sync"
	"testing"
	"time"
)

func picture(w, h int, alpha uint8) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.SetNRGBA(x, y, color.NRGBA{uint8(x), uint8(y), 90, alpha})
		}
	}
	return img
}

func encoded(t *testing.T, enc func(*bytes.Buffer, image.Image) error, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := enc(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// pngBomb is a PNG whose header declares w×h pixels, followed by nothing
// worth decoding.
func pngBomb(w, h uint32) []byte { return pngBombDepth(w, h, 8) }

// pngBombDepth is pngBomb with depth bits a channel (8 or 16).
func pngBombDepth(w, h uint32, depth byte) []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	chunk := func(typ string, data []byte) {
		binary.Write(&b, binary.BigEndian, uint32(len(data)))
		c := append([]byte(typ), data...)
		b.Write(c)
		binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(c))
	}
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = depth, 6 // RGBA
	chunk("IHDR", ihdr)
	chunk("IDAT", []byte{0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01})
	chunk("IEND", nil)
	return b.Bytes()
}

func TestMake(t *testing.T) {
	m, err := New(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	pngEnc := func(b *bytes.Buffer, i image.Image) error { return png.Encode(b, i) }
	jpegEnc := func(b *bytes.Buffer, i image.Image) error { return jpeg.Encode(b, i, nil) }
	gifEnc := func(b *bytes.Buffer, i image.Image) error { return gif.Encode(b, i, nil) }
	for _, c := range []struct {
		name         string
		data         []byte
		wantType     string
		wantW, wantH int
	}{
		{"wide PNG with alpha", encoded(t, pngEnc, picture(1600, 800, 128)), "image/png", Box, Box / 2},
		{"tall JPEG", encoded(t, jpegEnc, picture(300, 1200, 255)), "image/jpeg", Box / 4, Box},
		{"small GIF, never scaled up", encoded(t, gifEnc, picture(40, 30, 255)), "image/jpeg", 40, 30},
	} {
		t.Run(c.name, func(t *testing.T) {
			th, err := m.Make(t.Context(), bytes.NewReader(c.data))
			if err != nil {
				t.Fatal(err)
			}
			if th.Type != c.wantType || th.Width != c.wantW || th.Height != c.wantH {
				t.Errorf("got %s %d×%d, want %s %d×%d", th.Type, th.Width, th.Height, c.wantType, c.wantW, c.wantH)
			}
			cfg, format, err := image.DecodeConfig(bytes.NewReader(th.Data))
			if err != nil || "image/"+format != th.Type || cfg.Width != th.Width || cfg.Height != th.Height {
				t.Errorf("the thumbnail decodes as %s %+v, %v", format, cfg, err)
			}
			if bytes.Equal(th.Data, c.data) {
				t.Error("the thumbnail is the original bytes")
			}
		})
	}
}

func TestMakeRefuses(t *testing.T) {
	m, _ := New(0, 0)
	for name, c := range map[string]struct {
		data []byte
		want error
	}{
		"100000×100000 PNG bomb": {pngBomb(100000, 100000), ErrRefused},
		"20000×10 side":          {pngBomb(20000, 10), ErrRefused},
		"8000×8000, 64 MP":       {pngBomb(8000, 8000), ErrRefused},
		// 49 MP of 16-bit RGBA decode to 392 MB (the outside attack's
		// row 395: 394 KB files took the server to 975 MB).
		"7000×7000 16-bit RGBA":   {pngBombDepth(7000, 7000, 16), ErrRefused},
		"SVG":                     {[]byte(`<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`), ErrFormat},
		"HTML":                    {[]byte(`<!doctype html><script>alert(1)</script>`), ErrFormat},
		"BMP (not decoded here)":  {append([]byte("BM"), make([]byte, 60)...), ErrFormat},
		"PNG header, broken data": {pngBomb(100, 100), ErrFormat},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := m.Make(t.Context(), bytes.NewReader(c.data))
			if !errors.Is(err, c.want) {
				t.Errorf("got %v, want %v", err, c.want)
			}
		})
	}
	if s := m.Stats(); s.Refused != 4 || s.PeakPixels > 100*100 {
		t.Errorf("stats %+v: want 4 refused by their header, nothing larger than 100×100 decoded", s)
	}
}

// TestMakeBudget makes many thumbnails at once: the pixels held never
// exceed the budget, and with a short wait the overflow is ErrBusy.
func TestMakeBudget(t *testing.T) {
	img := encoded(t, func(b *bytes.Buffer, i image.Image) error { return png.Encode(b, i) }, picture(4000, 3000, 255)) // 12 MP
	m, err := New(MaxPixels, 50*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var ok, busy int
	for range 12 {
		wg.Go(func() {
			_, err := m.Make(t.Context(), bytes.NewReader(img))
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				ok++
			case errors.Is(err, ErrBusy):
				busy++
			default:
				t.Error(err)
			}
		})
	}
	wg.Wait()
	s := m.Stats()
	if s.PeakPixels > MaxPixels || s.Pixels != 0 {
		t.Errorf("peak %d pixels held (budget %d), %d still held", s.PeakPixels, MaxPixels, s.Pixels)
	}
	if ok == 0 || ok+busy != 12 || uint64(busy) != s.Busy {
		t.Errorf("%d made, %d busy (stats %+v)", ok, busy, s)
	}
}
