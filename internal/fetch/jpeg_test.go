package fetch

import (
	"bytes"
	"context"
	"image/jpeg"
	"strings"
	"testing"
)

// TestJPEGScanBomb: a JPEG of many scans, each decoded over the whole
// picture, is refused before it is decoded; a usual one is counted right.
func TestJPEGScanBomb(t *testing.T) {
	var b bytes.Buffer
	if err := jpeg.Encode(&b, testImage(64, 32, false), nil); err != nil {
		t.Fatal(err)
	}
	one := b.Bytes()
	if n := jpegScans(one); n != 1 {
		t.Fatalf("a baseline JPEG has %d scans, want 1", n)
	}
	sos := bytes.Index(one, []byte{0xff, 0xda})
	eoi := bytes.LastIndex(one, []byte{0xff, 0xd9})
	scan := one[sos:eoi]
	bomb := append(append([]byte(nil), one[:sos]...), bytes.Repeat(scan, 3000)...)
	bomb = append(bomb, 0xff, 0xd9)
	if n := jpegScans(bomb); n != maxJPEGScans+1 {
		t.Errorf("3000 scans counted as %d, want the count to stop at %d", n, maxJPEGScans+1)
	}
	f := New(Config{})
	_, err := f.check(context.Background(), Image, bomb)
	if p, ok := err.(*Problem); !ok || !p.Refused || !strings.Contains(p.Reason, "scans") {
		t.Errorf("a 3000-scan JPEG: %v, want refused for its scans", err)
	}
	// At the limit, the decoder decides (these copied scans do not decode
	// as one picture, so it refuses for another reason).
	atLimit := append(append([]byte(nil), one[:sos]...), bytes.Repeat(scan, maxJPEGScans)...)
	atLimit = append(atLimit, 0xff, 0xd9)
	if n := jpegScans(atLimit); n != maxJPEGScans {
		t.Errorf("%d scans counted as %d", maxJPEGScans, n)
	}
	if _, err := f.check(context.Background(), Image, one); err != nil {
		t.Errorf("a baseline JPEG: %v", err)
	}
	// Restart markers and stuffed bytes inside a scan do not end it.
	synthetic := []byte{0xff, 0xd8, 0xff, 0xda, 0x00, 0x04, 0x01, 0x02, 0x11, 0xff, 0x00, 0x22, 0xff, 0xd0, 0x33, 0xff, 0xda, 0x00, 0x02, 0x44, 0xff, 0xd9}
	if n := jpegScans(synthetic); n != 2 {
		t.Errorf("synthetic stream: %d scans, want 2", n)
	}
}
