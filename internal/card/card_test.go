package card

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"strings"
	"testing"
	"unicode/utf8"
)

func newRenderer(t testing.TB) *Renderer {
	t.Helper()
	r, err := New()
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return r
}

// TestPNG draws cards of every kind of text and checks each is a 1200×630
// PNG: long names, names without spaces, right-to-left and CJK names
// (fallback glyphs), control and bidi characters, invalid UTF-8.
func TestPNG(t *testing.T) {
	r := newRenderer(t)
	logo := image.NewRGBA(image.Rect(0, 0, 300, 100))
	tests := map[string]Card{
		"plain":     {Title: "report.pdf", Detail: "12.4 MB", Footer: "Fileframe"},
		"branded":   {Title: "Spring campaign.zip", Detail: "248 MB", Headline: "Northwind Studio", Footer: "files.example.com", Accent: color.RGBA{0xe4, 0x57, 0x2e, 255}, OnAccent: color.RGBA{0, 0, 0, 255}, Ink: color.RGBA{0xb0, 0x3a, 0x1a, 255}, Logo: logo},
		"long":      {Title: strings.Repeat("a very long name ", 40), Detail: "1 B", Headline: strings.Repeat("headline ", 30)},
		"no spaces": {Title: strings.Repeat("x", 2000) + ".tar.gz", Detail: "1.2 GB"},
		"cjk":       {Title: "報告書_最終版_2026年.pdf", Detail: "3 kB"},
		"rtl":       {Title: "مرحبا بالعالم שלום.docx", Detail: "3 kB", Headline: "עברית"},
		"controls":  {Title: "evil\u202egpj.exe\x00\n\t\x7f name", Detail: "1 B"},
		"invalid":   {Title: "\xff\xfe\xfd", Detail: "\xc3"},
		"empty":     {},
		"locked":    {Title: "A file shared with you", Locked: true},
		"wide rune": {Title: "\U0001F600\U0001F600", Locked: true},
	}
	for name, c := range tests {
		t.Run(name, func(t *testing.T) {
			b, err := r.PNG(c)
			if err != nil {
				t.Fatalf("PNG: %v", err)
			}
			img, err := png.Decode(bytes.NewReader(b))
			if err != nil {
				t.Fatalf("png.Decode: %v", err)
			}
			if got := img.Bounds().Size(); got != (image.Point{Width, Height}) {
				t.Errorf("size = %v, want %dx%d", got, Width, Height)
			}
		})
	}
}

// TestCardShowsInputs checks that the text is actually drawn: a card with
// a title differs from one without, and an accent colours the footer.
func TestCardShowsInputs(t *testing.T) {
	r := newRenderer(t)
	accent := color.RGBA{0x0f, 0x76, 0x6e, 255}
	plain, err := r.Draw(Card{Accent: accent, OnAccent: color.RGBA{255, 255, 255, 255}, Ink: accent})
	if err != nil {
		t.Fatal(err)
	}
	named, err := r.Draw(Card{Title: "report.pdf", Accent: accent, OnAccent: color.RGBA{255, 255, 255, 255}, Ink: accent})
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(plain.Pix, named.Pix) {
		t.Error("a card with a title is the same as one without")
	}
	if got := named.RGBAAt(5, Height-5); got != accent {
		t.Errorf("footer pixel = %v, want the accent %v", got, accent)
	}
}

func TestWrap(t *testing.T) {
	r := newRenderer(t)
	f, err := r.faces()
	if err != nil {
		t.Fatal(err)
	}
	defer f.close()
	tests := []struct {
		in       string
		maxLines int
		want     []string
	}{
		{"short.pdf", 3, []string{"short.pdf"}},
		{"", 3, nil},
	}
	for _, tt := range tests {
		got := wrap(f.title, tt.in, textWidth, tt.maxLines)
		if strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("wrap(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	long := strings.Repeat("word ", 200)
	got := wrap(f.title, long, textWidth, 3)
	if len(got) != 3 {
		t.Fatalf("wrap(long) gave %d lines, want 3", len(got))
	}
	if !strings.HasSuffix(got[2], "…") {
		t.Errorf("last line %q does not end in …", got[2])
	}
	for _, l := range got {
		if w := measure(f.title, l).Ceil(); w > textWidth {
			t.Errorf("line %q is %d px wide, more than %d", l, w, textWidth)
		}
		if !utf8.ValidString(l) {
			t.Errorf("line %q is not valid UTF-8", l)
		}
	}
	// A name without spaces breaks at its separators.
	got = wrap(f.title, "quarterly_report_for_the_board_of_directors_2026_final_version.pdf", textWidth, 3)
	if len(got) < 2 || !strings.HasSuffix(got[0], "_") {
		t.Errorf("wrap(name_with_underscores) = %q, want a break after an underscore", got)
	}
}

func TestClean(t *testing.T) {
	tests := map[string]string{
		"a\u202eb":      "ab",
		"a\n\t b":       "a b",
		"  lead":        "lead",
		"x\x00y":        "x y",
		"\xff":          "\uFFFD",
		"zero\u200bwid": "zerowid",
	}
	for in, want := range tests {
		if got := clean(in); got != want {
			t.Errorf("clean(%q) = %q, want %q", in, got, want)
		}
	}
	if got := clean(strings.Repeat("é", 10_000)); utf8.RuneCountInString(got) > maxTitleRun+1 {
		t.Errorf("clean kept %d runes, want at most %d", utf8.RuneCountInString(got), maxTitleRun+1)
	}
}

func encode(t *testing.T, format string, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	var err error
	switch format {
	case "png":
		err = png.Encode(&b, img)
	case "jpeg":
		err = jpeg.Encode(&b, img, nil)
	case "gif":
		err = gif.Encode(&b, img, nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// webpLogo is a 1×1 lossless WebP (cwebp -lossless).
var webpLogo = []byte{
	0x52, 0x49, 0x46, 0x46, 0x1a, 0x00, 0x00, 0x00, 0x57, 0x45, 0x42, 0x50,
	0x56, 0x50, 0x38, 0x4c, 0x0d, 0x00, 0x00, 0x00, 0x2f, 0x00, 0x00, 0x00,
	0x10, 0x07, 0x10, 0x11, 0x11, 0x88, 0x88, 0xfe, 0x07, 0x00,
}

func TestDecodeLogo(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 40, 20))
	for _, format := range []string{"png", "jpeg", "gif"} {
		got, err := DecodeLogo(encode(t, format, img))
		if err != nil {
			t.Errorf("DecodeLogo(%s): %v", format, err)
			continue
		}
		if got.Bounds().Dx() != 40 || got.Bounds().Dy() != 20 {
			t.Errorf("DecodeLogo(%s) bounds = %v", format, got.Bounds())
		}
	}
	if _, err := DecodeLogo(webpLogo); err != nil {
		t.Errorf("DecodeLogo(webp): %v", err)
	}
	if _, err := DecodeLogo([]byte("<svg></svg>")); err == nil {
		t.Error("DecodeLogo(svg) succeeded")
	}
}

// BombPNG returns a small PNG that declares width×height pixels: a valid
// header and no pixel data worth decoding.
func bombPNG(t testing.TB, width, height uint32) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 1, 1))); err != nil {
		t.Fatal(err)
	}
	p := b.Bytes()
	// IHDR's width and height follow the signature (8), length (4), type (4).
	put := func(at int, v uint32) {
		p[at], p[at+1], p[at+2], p[at+3] = byte(v>>24), byte(v>>16), byte(v>>8), byte(v)
	}
	put(16, width)
	put(20, height)
	// Its CRC no longer matches; Go's DecodeConfig checks it, so fix it.
	fixIHDRCRC(p)
	return p
}

// TestDecodeLogoBomb checks that a logo declaring more than MaxLogoPixels
// is refused from its header, before anything is allocated for it.
func TestDecodeLogoBomb(t *testing.T) {
	bomb := bombPNG(t, 50_000, 50_000)
	var before, after runtimeMem
	before.read()
	_, err := DecodeLogo(bomb)
	after.read()
	if !errors.Is(err, ErrLogoTooLarge) {
		t.Fatalf("DecodeLogo(50000×50000) = %v, want ErrLogoTooLarge", err)
	}
	if grew := after.total - before.total; grew > 1<<20 {
		t.Errorf("refusing the bomb allocated %d bytes", grew)
	}
	if _, err := DecodeLogo(bombPNG(t, 2001, 2000)); !errors.Is(err, ErrLogoTooLarge) {
		t.Errorf("DecodeLogo(2001×2000) = %v, want ErrLogoTooLarge", err)
	}
	// A strip within the pixel count but not the side (the outside
	// attack's 1 × 4,000,000 logo cost 400 MB to scale).
	for _, wh := range [][2]uint32{{1, 4_000_000}, {4_000_000, 1}, {MaxLogoSide + 1, 10}} {
		if _, err := DecodeLogo(bombPNG(t, wh[0], wh[1])); !errors.Is(err, ErrLogoTooLarge) {
			t.Errorf("DecodeLogo(%d×%d) = %v, want ErrLogoTooLarge", wh[0], wh[1], err)
		}
	}
}
