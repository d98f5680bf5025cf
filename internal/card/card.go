// Package card draws the link preview card of a download link: the
// 1200×630 PNG that link previews (Slack, WhatsApp, iMessage, LinkedIn,
// Discord) show as og:image. It is pure: no I/O, no state but the parsed
// fonts; the caller bounds how many cards are drawn at once and caches them
// (internal/web/public_card.go).
//
// Text is set in the Go fonts (golang.org/x/image/font/gofont), embedded
// in the binary: no font is fetched or read from the system. They cover
// Latin, Greek and Cyrillic; other scripts (CJK, Arabic, Hebrew …) are
// drawn with the fonts' fallback glyph, left to right, which is legible as
// "a name in another script" and never fails.
package card

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"strings"
	"unicode"
	"unicode/utf8"

	xdraw "golang.org/x/image/draw"
	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/gomedium"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
	"golang.org/x/image/vector"
)

// The card's size: what Open Graph consumers expect of a large image
// (1.91:1).
const (
	Width  = 1200
	Height = 630
)

// Card is what one card shows. Empty texts are left out.
type Card struct {
	// Title is the big text: the file's name, or a generic title for a
	// link that hides it. At most three lines; longer ends in "…".
	Title string
	// Detail is the line below the title: the file's size.
	Detail string
	// Headline is the owner's headline, above the title, one line.
	Headline string
	// Footer is the site's name in the footer band.
	Footer string
	// Locked draws a padlock beside the title (a password-protected link).
	Locked bool
	// Accent fills the bands; OnAccent is text on it; Ink is the accent
	// as text on white (see web's deriveAccent). Zero colours get a
	// neutral blue.
	Accent, OnAccent, Ink color.RGBA
	// Logo is drawn at the top left, scaled to fit; nil: none (see
	// DecodeLogo).
	Logo image.Image
}

// Renderer draws cards. It is safe for concurrent use: the parsed fonts are
// read-only and each Draw makes its own faces.
type Renderer struct {
	regular, medium, bold *opentype.Font
}

// New parses the embedded Go fonts.
func New() (*Renderer, error) {
	var r Renderer
	for _, f := range []struct {
		dst *(*opentype.Font)
		ttf []byte
	}{{&r.regular, goregular.TTF}, {&r.medium, gomedium.TTF}, {&r.bold, gobold.TTF}} {
		p, err := opentype.Parse(f.ttf)
		if err != nil {
			return nil, fmt.Errorf("card: parsing a Go font: %w", err)
		}
		*f.dst = p
	}
	return &r, nil
}

// Colours of the parts that are not the owner's.
var (
	paper     = color.RGBA{0xff, 0xff, 0xff, 0xff}
	titleInk  = color.RGBA{0x11, 0x18, 0x27, 0xff}
	detailInk = color.RGBA{0x4b, 0x55, 0x63, 0xff}
	// The defaults: the minimal template's accent.
	defaultAccent = color.RGBA{0x1d, 0x4e, 0xd8, 0xff}
)

// Layout, in pixels.
const (
	margin      = 80
	topBand     = 12
	logoTop     = 64
	logoMaxH    = 96
	logoMaxW    = 420
	footerH     = 112
	titleSize   = 64
	titleLine   = 78
	headSize    = 38
	headLine    = 54
	detailSize  = 34
	footerSize  = 34
	pillH       = 64
	pillPadX    = 30
	lockSize    = 54
	textWidth   = Width - 2*margin
	footerTop   = Height - footerH
	contentTop  = logoTop + logoMaxH + 44 // below the logo row
	maxTitleRun = 400                     // runes of a title considered at all
)

// PNG draws c and encodes it.
func (r *Renderer) PNG(c Card) ([]byte, error) {
	img, err := r.Draw(c)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&b, img); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Draw draws c.
func (r *Renderer) Draw(c Card) (*image.RGBA, error) {
	if c.Accent == (color.RGBA{}) {
		c.Accent, c.OnAccent, c.Ink = defaultAccent, paper, defaultAccent
	}
	faces, err := r.faces()
	if err != nil {
		return nil, err
	}
	defer faces.close()

	img := image.NewRGBA(image.Rect(0, 0, Width, Height))
	draw.Draw(img, img.Bounds(), image.NewUniform(paper), image.Point{}, draw.Src)
	fill(img, image.Rect(0, 0, Width, topBand), c.Accent)

	// The logo row: the owner's logo, else a document mark in the accent.
	if c.Logo != nil {
		drawLogo(img, c.Logo)
	} else {
		drawDocument(img, margin-14, logoTop, logoMaxH, c.Accent)
	}

	// The text block: headline, title, detail, centred between the logo
	// row and the footer.
	headline, title, detail := clean(c.Headline), clean(c.Title), clean(c.Detail)
	titleX, titleW, titleLines := margin, textWidth, 3
	if c.Locked {
		titleX += lockSize + 24
		titleW -= lockSize + 24
	}
	var head, lines []string
	if headline != "" {
		head = wrap(faces.head, headline, textWidth, 1)
		titleLines = 2
	}
	if title != "" {
		lines = wrap(faces.title, title, titleW, titleLines)
	}
	if detail != "" {
		detail = truncate(faces.detail, detail, textWidth)
	}
	height := 0
	if len(head) > 0 {
		height += headLine + 10
	}
	if len(lines) > 0 {
		height += titleLine * len(lines)
	}
	if detail != "" {
		height += 16 + headLine
	}
	top, bottom := contentTop-16, footerTop-24
	y := top + max(0, (bottom-top-height)/2)
	if len(head) > 0 {
		drawText(img, faces.head, head[0], margin, y+headSize, c.Ink)
		y += headLine + 10
	}
	if len(lines) > 0 {
		if c.Locked {
			drawLock(img, margin, y+8, lockSize, c.Ink)
		}
		for _, l := range lines {
			drawText(img, faces.title, l, titleX, y+titleSize, titleInk)
			y += titleLine
		}
	}
	if detail != "" {
		y += 16
		drawText(img, faces.detail, detail, margin, y+detailSize+4, detailInk)
	}

	// The footer band: the site's name, and a download button's likeness.
	fill(img, image.Rect(0, footerTop, Width, Height), c.Accent)
	label := "Download"
	labelW := measure(faces.pill, label).Ceil()
	pillW := pillPadX*2 + 30 + 14 + labelW
	px := Width - margin - pillW
	py := footerTop + (footerH-pillH)/2
	roundRect(img, px, py, pillW, pillH, pillH/2, c.OnAccent)
	drawArrow(img, px+pillPadX, py+(pillH-30)/2, 30, c.Accent)
	drawText(img, faces.pill, label, px+pillPadX+30+14, py+pillH/2+12, c.Accent)
	if f := clean(c.Footer); f != "" {
		drawText(img, faces.footer, truncate(faces.footer, f, px-2*margin), margin, footerTop+footerH/2+12, c.OnAccent)
	}
	return img, nil
}

// faces are the sizes of the Go fonts one card uses. A face keeps caches
// that are not safe for concurrent use, so each Draw makes its own.
type faces struct{ title, head, detail, footer, pill font.Face }

func (r *Renderer) faces() (*faces, error) {
	var f faces
	for _, x := range []struct {
		dst  *font.Face
		font *opentype.Font
		size float64
	}{
		{&f.title, r.bold, titleSize},
		{&f.head, r.medium, headSize},
		{&f.detail, r.regular, detailSize},
		{&f.footer, r.medium, footerSize},
		{&f.pill, r.bold, 30},
	} {
		face, err := opentype.NewFace(x.font, &opentype.FaceOptions{Size: x.size, DPI: 72, Hinting: font.HintingFull})
		if err != nil {
			f.close()
			return nil, fmt.Errorf("card: %w", err)
		}
		*x.dst = face
	}
	return &f, nil
}

func (f *faces) close() {
	for _, face := range []font.Face{f.title, f.head, f.detail, f.footer, f.pill} {
		if face != nil {
			face.Close()
		}
	}
}

// clean makes s safe to set on one line: valid UTF-8, no control or
// bidirectional formatting characters (a name could use U+202E to show
// "gpj.exe" as "exe.jpg"), spaces collapsed, and bounded in length.
func clean(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	space, n := false, 0
	for _, r := range s {
		switch {
		case unicode.IsSpace(r) || unicode.IsControl(r):
			space = b.Len() > 0
			continue
		case unicode.Is(unicode.Bidi_Control, r), r == '\u200b', r == '\ufeff':
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
		if n++; n >= maxTitleRun {
			b.WriteString("…")
			break
		}
	}
	return b.String()
}

// measure is s's advance in face.
func measure(face font.Face, s string) fixed.Int26_6 {
	return font.MeasureString(face, s)
}

// wrap breaks s into at most maxLines lines no wider than width, preferring
// breaks after spaces and the separators of file names (_ - . ,), else
// anywhere; the last line ends in "…" when s does not fit.
func wrap(face font.Face, s string, width, maxLines int) []string {
	limit := fixed.I(width)
	var lines []string
	rest := s
	for rest != "" && len(lines) < maxLines {
		if len(lines) == maxLines-1 || measure(face, rest) <= limit {
			lines = append(lines, truncate(face, rest, width))
			break
		}
		// The longest prefix that fits, then back to a break point.
		fit, lastBreak, adv := 0, 0, fixed.Int26_6(0)
		prev := rune(-1)
		for i, r := range rest {
			if prev >= 0 {
				adv += face.Kern(prev, r)
			}
			a, _ := face.GlyphAdvance(r)
			if adv+a > limit && i > 0 {
				break
			}
			adv += a
			prev = r
			fit = i + utf8.RuneLen(r)
			if r == ' ' || r == '_' || r == '-' || r == '.' || r == ',' || r == '/' {
				lastBreak = fit
			}
		}
		cut := fit
		if lastBreak > fit/2 {
			cut = lastBreak
		}
		if cut == 0 { // a glyph wider than the line: give it one anyway
			_, size := utf8.DecodeRuneInString(rest)
			cut = size
		}
		lines = append(lines, strings.TrimRight(rest[:cut], " "))
		rest = strings.TrimLeft(rest[cut:], " ")
	}
	return lines
}

// truncate shortens s to width, ending it in "…" when it is cut.
func truncate(face font.Face, s string, width int) string {
	limit := fixed.I(width)
	if measure(face, s) <= limit {
		return s
	}
	limit -= measure(face, "…")
	runes := []rune(s)
	// Binary search on the number of runes kept.
	lo, hi := 0, len(runes)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if measure(face, string(runes[:mid])) <= limit {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return strings.TrimRight(string(runes[:lo]), " ") + "…"
}

// drawText draws s with its baseline's left end at (x, y).
func drawText(img *image.RGBA, face font.Face, s string, x, y int, c color.RGBA) {
	d := font.Drawer{Dst: img, Src: image.NewUniform(c), Face: face, Dot: fixed.P(x, y)}
	d.DrawString(s)
}

func fill(img *image.RGBA, r image.Rectangle, c color.RGBA) {
	draw.Draw(img, r, image.NewUniform(c), image.Point{}, draw.Src)
}

// drawLogo scales logo to fit the logo row, keeping its aspect ratio, and
// draws it over the paper (transparent logos keep their transparency).
func drawLogo(img *image.RGBA, logo image.Image) {
	b := logo.Bounds()
	if b.Dx() <= 0 || b.Dy() <= 0 {
		return
	}
	scale := min(float64(logoMaxH)/float64(b.Dy()), float64(logoMaxW)/float64(b.Dx()))
	w, h := max(1, int(float64(b.Dx())*scale)), max(1, int(float64(b.Dy())*scale))
	dst := image.Rect(margin, logoTop+(logoMaxH-h)/2, margin+w, logoTop+(logoMaxH-h)/2+h)
	xdraw.CatmullRom.Scale(img, dst, logo, b, xdraw.Over, nil)
}

// path is a closed shape in card coordinates, filled with one colour.
type path struct {
	z    *vector.Rasterizer
	x, y int // the shape's box in the card
}

func newPath(x, y, w, h int) *path {
	return &path{z: vector.NewRasterizer(w, h), x: x, y: y}
}

func (p *path) fill(img *image.RGBA, c color.RGBA) {
	size := p.z.Size()
	r := image.Rect(p.x, p.y, p.x+size.X, p.y+size.Y)
	p.z.Draw(img, r, image.NewUniform(c), image.Point{})
}

// roundRect fills a rectangle with corners of radius rad.
func roundRect(img *image.RGBA, x, y, w, h, rad int, c color.RGBA) {
	p := newPath(x, y, w, h)
	addRoundRect(p.z, 0, 0, float32(w), float32(h), float32(rad))
	p.fill(img, c)
}

// addRoundRect adds a rounded rectangle to z (the corners are quadratic
// curves, close enough to arcs at these sizes).
func addRoundRect(z *vector.Rasterizer, x, y, w, h, r float32) {
	z.MoveTo(x+r, y)
	z.LineTo(x+w-r, y)
	z.QuadTo(x+w, y, x+w, y+r)
	z.LineTo(x+w, y+h-r)
	z.QuadTo(x+w, y+h, x+w-r, y+h)
	z.LineTo(x+r, y+h)
	z.QuadTo(x, y+h, x, y+h-r)
	z.LineTo(x, y+r)
	z.QuadTo(x, y, x+r, y)
	z.ClosePath()
}

// drawDocument draws a document with a folded corner, size s tall, as the
// public pages' file icon.
func drawDocument(img *image.RGBA, x, y, s int, c color.RGBA) {
	f := float32(s) / 48 // the icon's own grid is 48 units
	p := newPath(x, y, s, s)
	z := p.z
	// Outer outline, then the inner one in the other direction: a stroke.
	z.MoveTo(12*f, 4*f)
	z.LineTo(29*f, 4*f)
	z.LineTo(40*f, 15*f)
	z.LineTo(40*f, 44*f)
	z.LineTo(10*f, 44*f)
	z.LineTo(10*f, 4*f)
	z.ClosePath()
	t := 3 * f
	z.MoveTo(10*f+t, 4*f+t)
	z.LineTo(10*f+t, 44*f-t)
	z.LineTo(40*f-t, 44*f-t)
	z.LineTo(40*f-t, 15*f+t*0.5)
	z.LineTo(29*f-t*0.5, 4*f+t)
	z.ClosePath()
	// The fold.
	z.MoveTo(27*f, 4*f)
	z.LineTo(30*f, 4*f)
	z.LineTo(30*f, 14*f)
	z.LineTo(40*f, 14*f)
	z.LineTo(40*f, 17*f)
	z.LineTo(27*f, 17*f)
	z.ClosePath()
	p.fill(img, c)
}

// drawArrow draws a downward arrow over a tray (the download control's
// icon), s pixels square.
func drawArrow(img *image.RGBA, x, y, s int, c color.RGBA) {
	f := float32(s) / 24
	p := newPath(x, y, s, s)
	z := p.z
	// Shaft and head.
	z.MoveTo(10.8*f, 3*f)
	z.LineTo(13.2*f, 3*f)
	z.LineTo(13.2*f, 12*f)
	z.LineTo(16.5*f, 8.7*f)
	z.LineTo(18.2*f, 10.4*f)
	z.LineTo(12*f, 16.6*f)
	z.LineTo(5.8*f, 10.4*f)
	z.LineTo(7.5*f, 8.7*f)
	z.LineTo(10.8*f, 12*f)
	z.ClosePath()
	// Tray.
	addRoundRect(z, 4*f, 18.3*f, 16*f, 2.4*f, 1.2*f)
	p.fill(img, c)
}

// drawLock draws a padlock s pixels square.
func drawLock(img *image.RGBA, x, y, s int, c color.RGBA) {
	f := float32(s) / 24
	p := newPath(x, y, s, s)
	z := p.z
	addRoundRect(z, 4*f, 10*f, 16*f, 12*f, 2*f)
	// The shackle: an arch, outer edge then inner edge back.
	z.MoveTo(6.5*f, 10*f)
	z.LineTo(6.5*f, 7.5*f)
	z.CubeTo(6.5*f, 0.5*f, 17.5*f, 0.5*f, 17.5*f, 7.5*f)
	z.LineTo(17.5*f, 10*f)
	z.LineTo(15*f, 10*f)
	z.LineTo(15*f, 7.5*f)
	z.CubeTo(15*f, 3.8*f, 9*f, 3.8*f, 9*f, 7.5*f)
	z.LineTo(9*f, 10*f)
	z.ClosePath()
	p.fill(img, c)
}
