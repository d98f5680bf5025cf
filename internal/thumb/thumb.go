// Package thumb makes the thumbnails of image previews (issue 13): an
// uploaded PNG, JPEG, GIF (its first frame) or WebP decoded by the
// standard library's and golang.org/x/image's decoders, scaled with
// golang.org/x/image/draw and encoded again, so that no byte of the
// upload reaches a browser. Decoding is bounded: an image is decoded only
// when its header declares at most MaxPixels and MaxSide, and the images
// being decoded at once hold at most the Maker's budget of pixels, a
// weighted semaphore that every caller waits in (as internal/password's
// Hasher does for memory).
package thumb

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"sync"
	"time"

	xdraw "golang.org/x/image/draw"
	"golang.org/x/image/webp"
	"golang.org/x/sync/semaphore"
)

// Limits of what is decoded.
const (
	// MaxPixels is the most pixels an image may declare (50 megapixels):
	// decoding one takes about 4 bytes a pixel, 200 MB.
	MaxPixels = 50_000_000
	// MaxSide is the longest side an image may declare.
	MaxSide = 16384
	// Box is the largest thumbnail: it fits in Box×Box pixels.
	Box = 720
	// DefaultBudget is the pixels decoded at once by default: one image
	// of MaxPixels and change, about 256 MB of decoded pixels.
	DefaultBudget = 64_000_000
	// MaxDecoded is the most bytes an image's decoded pixels may take:
	// MaxPixels at 4 bytes a pixel and change. A 16-bit image takes 8
	// bytes a pixel, so it may declare half as many.
	MaxDecoded = 4 * MaxPixels
	// DefaultMaxWait is how long a decode waits for room by default.
	DefaultMaxWait = 10 * time.Second
	// maxInput bounds the bytes a decoder may read: a valid image of
	// MaxPixels is far smaller, so more is a bomb of another kind.
	maxInput = 512 << 20
)

// Errors of Make. ErrRefused and ErrFormat are the image's own: making
// its thumbnail again would fail again. ErrBusy is the server's: later
// it may succeed.
var (
	// ErrRefused: the image declares more than MaxPixels or MaxSide.
	ErrRefused = errors.New("thumb: the image is too large to preview")
	// ErrFormat: not one of the formats decoded, or it does not decode.
	ErrFormat = errors.New("thumb: not an image that can be previewed")
	// ErrBusy: the budget stayed full for the Maker's wait.
	ErrBusy = errors.New("thumb: too many images are being decoded")
)

// decoders are the formats decoded, by the name image.DecodeConfig would
// give; each is called directly, so that a format some other package of
// the binary registers (BMP, TIFF, …) is never decoded here.
var decoders = map[string]struct {
	config func(io.Reader) (image.Config, error)
	decode func(io.Reader) (image.Image, error)
}{
	"png":  {png.DecodeConfig, png.Decode},
	"jpeg": {jpeg.DecodeConfig, jpeg.Decode},
	"gif":  {gif.DecodeConfig, gif.Decode}, // gif.Decode returns the first frame
	"webp": {webp.DecodeConfig, webp.Decode},
}

// magic tells the format from the first bytes (as image.Decode's
// registrations do).
func format(head []byte) string {
	switch {
	case bytes.HasPrefix(head, []byte("\x89PNG\r\n\x1a\n")):
		return "png"
	case bytes.HasPrefix(head, []byte("\xff\xd8\xff")):
		return "jpeg"
	case bytes.HasPrefix(head, []byte("GIF87a")), bytes.HasPrefix(head, []byte("GIF89a")):
		return "gif"
	case len(head) >= 12 && string(head[:4]) == "RIFF" && string(head[8:12]) == "WEBP":
		return "webp"
	}
	return ""
}

// Thumbnail is a made thumbnail.
type Thumbnail struct {
	Data          []byte
	Type          string // image/jpeg (opaque images) or image/png
	Width, Height int
}

// Maker makes thumbnails under a budget of pixels. One Maker serves a
// whole process; it is safe for concurrent use.
type Maker struct {
	budget  int64
	maxWait time.Duration
	sem     *semaphore.Weighted

	mu    sync.Mutex
	stats Stats
}

// Stats is what a Maker is doing and has done.
type Stats struct {
	// Pixels is the budget held now, PeakPixels the most ever held at once.
	Pixels, PeakPixels int64
	// Decoded counts the images decoded; Refused the ones refused by
	// their declared size; Busy the ones refused with ErrBusy.
	Decoded, Refused, Busy uint64
}

// New returns a Maker with a budget of pixels (0: DefaultBudget; it must
// hold one image of MaxPixels) and a wait (0: DefaultMaxWait).
func New(budget int64, maxWait time.Duration) (*Maker, error) {
	if budget == 0 {
		budget = DefaultBudget
	}
	if maxWait == 0 {
		maxWait = DefaultMaxWait
	}
	if budget < MaxPixels {
		return nil, fmt.Errorf("thumb: a budget of %d pixels cannot hold one image of %d", budget, MaxPixels)
	}
	return &Maker{budget: budget, maxWait: maxWait, sem: semaphore.NewWeighted(budget)}, nil
}

// Stats returns a snapshot of m's counters.
func (m *Maker) Stats() Stats {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.stats
}

// Make reads an image from src (rewound first), decodes it within the
// limits and the budget, and returns its thumbnail: scaled down to fit
// in Box×Box (never up), encoded as JPEG when it is opaque, else as PNG.
func (m *Maker) Make(ctx context.Context, src io.ReadSeeker) (Thumbnail, error) {
	if _, err := src.Seek(0, io.SeekStart); err != nil {
		return Thumbnail{}, err
	}
	br := bufio.NewReader(io.LimitReader(src, maxInput))
	head, _ := br.Peek(12)
	dec, ok := decoders[format(head)]
	if !ok {
		return Thumbnail{}, ErrFormat
	}
	cfg, err := dec.config(br)
	if err != nil {
		return Thumbnail{}, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	pixels := int64(cfg.Width) * int64(cfg.Height)
	decoded := pixels * bytesPerPixel(cfg.ColorModel)
	if cfg.Width <= 0 || cfg.Height <= 0 || cfg.Width > MaxSide || cfg.Height > MaxSide || pixels > MaxPixels || decoded > MaxDecoded {
		m.count(func(s *Stats) { s.Refused++ })
		return Thumbnail{}, fmt.Errorf("%w: %d×%d", ErrRefused, cfg.Width, cfg.Height)
	}
	// The budget counts pixels of 4 bytes: a 16-bit image's count twice.
	pixels = (decoded + 3) / 4
	if err := m.acquire(ctx, pixels); err != nil {
		return Thumbnail{}, err
	}
	defer m.release(pixels)

	if _, err := src.Seek(0, io.SeekStart); err != nil {
		return Thumbnail{}, err
	}
	img, err := dec.decode(bufio.NewReader(io.LimitReader(src, maxInput)))
	m.count(func(s *Stats) { s.Decoded++ })
	if err != nil {
		return Thumbnail{}, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	return encode(scale(img))
}

// bytesPerPixel is what one pixel of an image of model m takes once
// decoded: 8 for 16-bit colour, 2 for 16-bit grey, 1 for grey and
// palettes, 3 for JPEG's YCbCr at its largest (4:4:4), 4 otherwise.
func bytesPerPixel(m color.Model) int64 {
	switch m {
	case color.RGBA64Model, color.NRGBA64Model:
		return 8
	case color.Gray16Model:
		return 2
	case color.GrayModel, color.AlphaModel:
		return 1
	case color.YCbCrModel:
		return 3
	}
	if _, ok := m.(color.Palette); ok {
		return 1
	}
	return 4
}

// acquire takes pixels of the budget, waiting up to maxWait.
func (m *Maker) acquire(ctx context.Context, pixels int64) error {
	wctx, cancel := context.WithTimeout(ctx, m.maxWait)
	defer cancel()
	if err := m.sem.Acquire(wctx, pixels); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		m.count(func(s *Stats) { s.Busy++ })
		return ErrBusy
	}
	m.count(func(s *Stats) {
		s.Pixels += pixels
		s.PeakPixels = max(s.PeakPixels, s.Pixels)
	})
	return nil
}

func (m *Maker) release(pixels int64) {
	m.count(func(s *Stats) { s.Pixels -= pixels })
	m.sem.Release(pixels)
}

func (m *Maker) count(f func(*Stats)) {
	m.mu.Lock()
	f(&m.stats)
	m.mu.Unlock()
}

// scale returns img fitted in Box×Box, on a fresh RGBA image.
func scale(img image.Image) *image.RGBA {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	if w > Box || h > Box {
		if w >= h {
			w, h = Box, max(1, h*Box/w)
		} else {
			w, h = max(1, w*Box/h), Box
		}
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	if w == b.Dx() && h == b.Dy() {
		draw.Draw(dst, dst.Bounds(), img, b.Min, draw.Src)
	} else {
		xdraw.BiLinear.Scale(dst, dst.Bounds(), img, b, xdraw.Src, nil)
	}
	return dst
}

// encode writes img as JPEG when it is opaque, else as PNG.
func encode(img *image.RGBA) (Thumbnail, error) {
	var b bytes.Buffer
	t := Thumbnail{Width: img.Rect.Dx(), Height: img.Rect.Dy()}
	var err error
	if img.Opaque() {
		t.Type = "image/jpeg"
		err = jpeg.Encode(&b, img, &jpeg.Options{Quality: 82})
	} else {
		t.Type = "image/png"
		err = (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&b, img)
	}
	t.Data = b.Bytes()
	return t, err
}
