package card

import (
	"bytes"
	"errors"
	"fmt"
	"image"

	// The formats an appearance's images may have (web's imageTypes).
	_ "image/gif"
	_ "image/jpeg"
	_ "image/png"

	_ "golang.org/x/image/webp"
)

// MaxLogoPixels bounds the logos DecodeLogo decodes: 4 megapixels, 16 MiB
// as RGBA. An upload is at most 2 MB, but a small file can declare a huge
// image (a "decompression bomb": a 2 MB PNG of 50,000 × 50,000 blank
// pixels would need 10 GB decoded), so the size in the image's header is
// checked before a single pixel is.
const MaxLogoPixels = 4_000_000

// MaxLogoSide bounds each side of a logo: a thin strip of a few pixels'
// width and millions' height passes MaxLogoPixels, yet scaling it into
// the card's logo box cost hundreds of megabytes (the outside attack's
// 1 × 4,000,000 PNG, 70 KB).
const MaxLogoSide = 4096

// ErrLogoTooLarge is DecodeLogo's error for a logo over MaxLogoPixels.
var ErrLogoTooLarge = errors.New("card: the logo has too many pixels")

// DecodeLogo decodes a PNG, JPEG, GIF (its first frame) or WebP logo of at
// most MaxLogoPixels. A logo it refuses is best left out of the card.
func DecodeLogo(b []byte) (image.Image, error) {
	cfg, format, err := image.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("card: reading the logo's header: %w", err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || cfg.Width > MaxLogoSide || cfg.Height > MaxLogoSide ||
		int64(cfg.Width)*int64(cfg.Height) > MaxLogoPixels {
		return nil, fmt.Errorf("%w: a %s of %d×%d", ErrLogoTooLarge, format, cfg.Width, cfg.Height)
	}
	img, _, err := image.Decode(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("card: decoding the logo: %w", err)
	}
	// A decoder that disagrees with its own header (a GIF frame larger
	// than its screen, say) has already decoded it; refuse to draw it all
	// the same, so that what the header promised is what is drawn.
	if b := img.Bounds(); b.Dx() > MaxLogoSide || b.Dy() > MaxLogoSide || int64(b.Dx())*int64(b.Dy()) > MaxLogoPixels {
		return nil, fmt.Errorf("%w: decoded to %v", ErrLogoTooLarge, b)
	}
	return img, nil
}
