package htmlcheck

import (
	"strings"
	"testing"
)

func TestAllBase64Run(t *testing.T) {
	for c := 0; c < 256; c++ {
		for pos := range 8 {
			var x uint64
			for i := 7; i >= 0; i-- {
				b := byte('A')
				if i == pos {
					b = byte(c)
				}
				x = x<<8 | uint64(b)
			}
			if got, want := allBase64Run(x), base64Run[c]; got != want {
				t.Fatalf("byte %#x at %d: got %v, want %v", c, pos, got, want)
			}
		}
	}
}

func TestShorten(t *testing.T) {
	payload := strings.Repeat("QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo0NTY3ODkw", 20)
	doc := []byte(`<img src="data:image/png;base64,` + payload + `/` + payload + `=="><p>x</p>` +
		`<style>a{background:url(data:image/gif;base64,` + payload + `)}</style>base64,short`)
	src, cuts := shorten(doc)
	if got, want := len(cuts), 3; got != want {
		t.Fatalf("got %d cuts, want %d", got, want)
	}
	if len(src) >= len(doc)/2 {
		t.Errorf("got %d bytes from %d, want less than half", len(src), len(doc))
	}
	c := &checker{doc: doc, src: src, cuts: cuts}
	for i := range src {
		j := c.docOffset(i)
		if src[i] == shortenMark && doc[j] != shortenMark {
			continue // the mark stands for the cut bytes
		}
		if src[i] != doc[j] {
			t.Fatalf("src[%d] = %q maps to doc[%d] = %q", i, src[i], j, doc[j])
		}
	}
	if got, want := c.docOffset(len(src)), len(doc); got != want {
		t.Errorf("end maps to %d, want %d", got, want)
	}
	if same, _ := shorten([]byte("<p>no payloads</p>")); string(same) != "<p>no payloads</p>" {
		t.Errorf("got %q for a document without base64", same)
	}
}
