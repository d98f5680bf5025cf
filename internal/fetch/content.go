package fetch

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"mime"
	"net/http"
	"unicode/utf8"

	"golang.org/x/image/bmp"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/webp"
)

// content is what a body was found to be: the type it is served with and
// the extension of its asset URL.
type content struct{ typ, ext string }

// check judges body as a resource of kind k by its bytes alone.
func (f *Fetcher) check(ctx context.Context, k Kind, body []byte) (content, error) {
	switch k {
	case Image:
		return f.checkImage(ctx, body)
	case Font:
		return checkFont(body)
	case Media:
		return checkMedia(body)
	default:
		return checkTrack(body)
	}
}

// imageFormat is an image format Fetch keeps, with its decoders.
type imageFormat struct {
	content
	name   string
	config func(io.Reader) (image.Config, error)
	decode func(io.Reader) (image.Image, error)
}

// imageFormatOf returns the format body's signature announces, if it is
// one Fetch keeps.
func imageFormatOf(body []byte) (imageFormat, bool) {
	switch {
	case bytes.HasPrefix(body, []byte("\x89PNG\r\n\x1a\n")):
		return imageFormat{content{"image/png", "png"}, "PNG", png.DecodeConfig, png.Decode}, true
	case bytes.HasPrefix(body, []byte("\xff\xd8\xff")):
		return imageFormat{content{"image/jpeg", "jpg"}, "JPEG", jpeg.DecodeConfig, jpeg.Decode}, true
	case bytes.HasPrefix(body, []byte("GIF87a")), bytes.HasPrefix(body, []byte("GIF89a")):
		return imageFormat{content{"image/gif", "gif"}, "GIF", gif.DecodeConfig, gif.Decode}, true
	case len(body) >= 12 && string(body[:4]) == "RIFF" && string(body[8:12]) == "WEBP":
		return imageFormat{content{"image/webp", "webp"}, "WebP", webp.DecodeConfig, webp.Decode}, true
	case bytes.HasPrefix(body, []byte("BM")):
		return imageFormat{content{"image/bmp", "bmp"}, "BMP", bmp.DecodeConfig, bmp.Decode}, true
	}
	return imageFormat{}, false
}

// checkImage accepts an image that fully decodes within the pixel caps,
// which are checked on its header before it is decoded.
func (f *Fetcher) checkImage(ctx context.Context, body []byte) (content, error) {
	format, ok := imageFormatOf(body)
	if !ok {
		if isSVG(body) {
			return content{}, refused("the bytes are an SVG image, which is never fetched because SVG can carry script; inline it in the page (an <svg> element or a data:image/svg+xml URL) instead")
		}
		return content{}, refused("the bytes are %s, not an image (PNG, JPEG, GIF, WebP or BMP)", describe(body))
	}
	cfg, err := format.config(bytes.NewReader(body))
	if err != nil {
		return content{}, refused("the bytes start as a %s image but its header does not decode (%v)", format.name, err)
	}
	w, h := int64(cfg.Width), int64(cfg.Height)
	if w > int64(f.cfg.MaxImageSide) || h > int64(f.cfg.MaxImageSide) || w*h > f.cfg.MaxImagePixels {
		return content{}, refused("the image is %dx%d pixels; images may be at most %d pixels a side and %d pixels in all",
			w, h, f.cfg.MaxImageSide, f.cfg.MaxImagePixels)
	}
	if w == 0 || h == 0 {
		return content{}, refused("the image is %dx%d pixels, which shows nothing", w, h)
	}
	if format.name == "JPEG" {
		if n := jpegScans(body); n > maxJPEGScans {
			return content{}, refused("the JPEG image has %d or more scans; at most %d are decoded (a usual progressive JPEG has about 10)", n, maxJPEGScans)
		}
	}
	if err := f.decodes.Acquire(ctx, 1); err != nil {
		return content{}, err
	}
	defer f.decodes.Release(1)
	if _, err := format.decode(bytes.NewReader(body)); err != nil {
		return content{}, refused("the bytes start as a %s image but do not decode (%v)", format.name, err)
	}
	return format.content, nil
}

// isSVG reports whether body looks like an SVG document: an <svg> root,
// perhaps after an XML declaration, comments or a doctype.
func isSVG(body []byte) bool {
	head := bytes.ToLower(body[:min(len(body), 4096)])
	head = bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")), " \t\r\n")
	if bytes.HasPrefix(head, []byte("<svg")) {
		return true
	}
	return (bytes.HasPrefix(head, []byte("<?xml")) || bytes.HasPrefix(head, []byte("<!"))) && bytes.Contains(head, []byte("<svg"))
}

// checkFont accepts WOFF and WOFF2 with a sound header, and TrueType,
// OpenType and collections that sfnt parses. Browsers sanitize web fonts
// themselves (OpenType Sanitizer); this keeps out whatever is not a font.
func checkFont(body []byte) (content, error) {
	switch {
	case bytes.HasPrefix(body, []byte("wOFF")):
		return content{"font/woff", "woff"}, checkWOFF(body)
	case bytes.HasPrefix(body, []byte("wOF2")):
		return content{"font/woff2", "woff2"}, checkWOFF2(body)
	case bytes.HasPrefix(body, []byte("ttcf")):
		c, err := sfnt.ParseCollection(body)
		if err != nil {
			return content{}, refused("the bytes start as a font collection but do not parse (%v)", err)
		}
		for i := range c.NumFonts() {
			if _, err := c.Font(i); err != nil {
				return content{}, refused("font %d of the collection does not parse (%v)", i, err)
			}
		}
		return content{"font/collection", "ttc"}, nil
	case bytes.HasPrefix(body, []byte("OTTO")), bytes.HasPrefix(body, []byte("\x00\x01\x00\x00")), bytes.HasPrefix(body, []byte("true")):
		c := content{"font/ttf", "ttf"}
		if body[0] == 'O' {
			c = content{"font/otf", "otf"}
		}
		if _, err := sfnt.Parse(body); err != nil {
			return content{}, refused("the bytes start as a TrueType or OpenType font but do not parse (%v)", err)
		}
		return c, nil
	}
	return content{}, refused("the bytes are %s, not a font (WOFF, WOFF2, TrueType, OpenType or a collection)", describe(body))
}

// checkWOFF checks a WOFF 1.0 header and table directory
// (https://www.w3.org/TR/WOFF/#WOFFHeader): the declared length is the
// body's, and every table lies within it.
func checkWOFF(body []byte) error {
	const header, entry = 44, 20
	if len(body) < header {
		return refused("the bytes start as a WOFF font but end within its header")
	}
	be := binary.BigEndian
	n := int(be.Uint16(body[12:]))
	if int(be.Uint32(body[8:])) != len(body) || n == 0 || be.Uint16(body[14:]) != 0 || header+n*entry > len(body) {
		return refused("the bytes start as a WOFF font but its header does not match its %d bytes", len(body))
	}
	for i := range n {
		e := body[header+i*entry:]
		off, comp, orig := uint64(be.Uint32(e[4:])), uint64(be.Uint32(e[8:])), uint64(be.Uint32(e[12:]))
		if off+comp > uint64(len(body)) || comp > orig {
			return refused("the bytes start as a WOFF font but table %d lies outside its %d bytes", i, len(body))
		}
	}
	return nil
}

// checkWOFF2 checks a WOFF2 header (https://www.w3.org/TR/WOFF2/#woff20Header):
// the declared length is the body's, with tables and no reserved bits.
func checkWOFF2(body []byte) error {
	const header = 48
	if len(body) < header {
		return refused("the bytes start as a WOFF2 font but end within its header")
	}
	be := binary.BigEndian
	if int(be.Uint32(body[8:])) != len(body) || be.Uint16(body[12:]) == 0 || be.Uint16(body[14:]) != 0 {
		return refused("the bytes start as a WOFF2 font but its header does not match its %d bytes", len(body))
	}
	return nil
}

// checkMedia accepts audio and video in the containers browsers play,
// by signature: the browser decodes them, in its media sandbox.
func checkMedia(body []byte) (content, error) {
	switch {
	case len(body) >= 12 && string(body[4:8]) == "ftyp":
		switch brand := string(body[8:12]); brand {
		case "M4A ", "M4B ", "M4P ":
			return content{"audio/mp4", "m4a"}, nil
		case "avif", "avis", "heic", "heix", "mif1", "msf1":
			return content{}, refused("the bytes are an AVIF or HEIF image (brand %q), not audio or video", brand)
		}
		return content{"video/mp4", "mp4"}, nil
	case bytes.HasPrefix(body, []byte("\x1a\x45\xdf\xa3")):
		// EBML: WebM names itself in the header's DocType.
		if bytes.Contains(body[:min(len(body), 64)], []byte("webm")) {
			return content{"video/webm", "webm"}, nil
		}
		return content{}, refused("the bytes are a Matroska file that is not WebM; audio and video must be MP4, WebM, Ogg, MP3, WAV or FLAC")
	case bytes.HasPrefix(body, []byte("OggS")):
		if bytes.Contains(body[:min(len(body), 128)], []byte("\x80theora")) {
			return content{"video/ogg", "ogg"}, nil
		}
		return content{"audio/ogg", "ogg"}, nil
	case bytes.HasPrefix(body, []byte("ID3")), isMP3Frame(body):
		return content{"audio/mpeg", "mp3"}, nil
	case len(body) >= 12 && string(body[:4]) == "RIFF" && string(body[8:12]) == "WAVE":
		return content{"audio/wav", "wav"}, nil
	case bytes.HasPrefix(body, []byte("fLaC")):
		return content{"audio/flac", "flac"}, nil
	}
	return content{}, refused("the bytes are %s, not audio or video (MP4, WebM, Ogg, MP3, WAV or FLAC)", describe(body))
}

// isMP3Frame reports whether body starts with an MPEG audio layer III
// frame header (an MP3 without an ID3 tag).
func isMP3Frame(b []byte) bool {
	return len(b) >= 4 && b[0] == 0xff && b[1]&0xe0 == 0xe0 && (b[1]>>1)&3 == 1 && b[2]>>4 != 0xf
}

// checkTrack accepts a WebVTT file: UTF-8 that starts with WEBVTT.
func checkTrack(body []byte) (content, error) {
	text := bytes.TrimPrefix(body, []byte("\xef\xbb\xbf"))
	rest, ok := bytes.CutPrefix(text, []byte("WEBVTT"))
	if !ok || len(rest) > 0 && !bytes.ContainsAny(rest[:1], " \t\r\n") {
		return content{}, refused("the bytes are %s, not a WebVTT text track (UTF-8 starting with WEBVTT)", describe(body))
	}
	if !utf8.Valid(body) {
		return content{}, refused("the text track is not valid UTF-8")
	}
	return content{"text/vtt; charset=utf-8", "vtt"}, nil
}

// describe names what body is, for a message: "a PNG image", "an HTML
// document".
func describe(body []byte) string {
	if f, ok := imageFormatOf(body); ok {
		return "a " + f.name + " image"
	}
	if isSVG(body) {
		return "an SVG image"
	}
	typ, _, _ := mime.ParseMediaType(http.DetectContentType(body))
	switch typ {
	case "text/html":
		return "an HTML document"
	case "text/xml":
		return "an XML document"
	case "text/plain":
		return "plain text"
	case "application/pdf":
		return "a PDF document"
	case "application/octet-stream":
		return "unrecognised binary data"
	case "application/x-gzip", "application/zip", "application/x-rar-compressed":
		return "a compressed archive (" + typ + ")"
	}
	return fmt.Sprintf("of type %s", typ)
}

// maxJPEGScans bounds the scans of a JPEG image. A progressive JPEG is
// decoded once per scan over the whole picture: a 100 KB file of 3,000
// tiny scans of a 4096×4096 image costs half a minute of CPU, and an
// 8 MiB one most of an hour. Encoders write about 10 (libjpeg's default
// progression) and rarely more than 20.
const maxJPEGScans = 64

// jpegScans counts the start-of-scan markers of a JPEG image, walking its
// segments by their lengths and each scan's entropy-coded data to the next
// marker (ISO/IEC 10918-1, B.1.1), and stops counting past maxJPEGScans.
// A structure it cannot walk is left to the decoder, which refuses it.
func jpegScans(b []byte) int {
	scans, i := 0, 2 // after SOI
	for i+1 < len(b) && scans <= maxJPEGScans {
		if b[i] != 0xff {
			return scans
		}
		m := b[i+1]
		i += 2
		switch {
		case m == 0xff: // fill byte
			i--
			continue
		case m == 0xd9: // EOI
			return scans
		case m == 0x01 || 0xd0 <= m && m <= 0xd7: // no length
			continue
		}
		if i+1 >= len(b) {
			return scans
		}
		i += int(b[i])<<8 | int(b[i+1])
		if m != 0xda {
			continue
		}
		scans++
		// The scan's entropy-coded data runs to the next marker: an 0xff
		// that is not a stuffed 0x00 or a restart marker.
		for i+1 < len(b) && !(b[i] == 0xff && b[i+1] != 0 && (b[i+1] < 0xd0 || b[i+1] > 0xd7)) {
			i++
		}
	}
	return scans
}
