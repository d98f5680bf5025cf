package htmlcheck

import (
	"bytes"
	"encoding/binary"
)

// Most of a large page is usually base64: data: URI images and fonts. The
// tokenizer reads byte by byte, so shorten cuts the middle out of long
// base64 payloads before tokenizing, and positions are mapped back to the
// document with docOffset.
//
// This cannot change how the tokenizer splits the document or its
// attributes: a payload (the bytes after "base64," in [A-Za-z0-9+/=]) holds
// no '<', '>', '&', quote or space, and only its maximal runs of
// [A-Za-z0-9+] longer than shortenMin are shortened, keeping their first
// and last shortenKeep bytes and every '/' and '='. Letters only matter to
// the tokenizer right after "<", "</", "<!" or "&", which never precede
// the shortened middle. What can change is the text of a key or value
// inside the payload, and the rules only look at the start of data: URIs.
// The scanners for script and CSS match whole
// identifiers, and an identifier inside a long run is not one.
//
// The shortened run is 2*shortenKeep+1 bytes with shortenMark in the
// middle: still one word to the label rules, and no attribute name the
// rules look at has that shape, so it cannot stand in for one.

const (
	shortenMin  = 32
	shortenKeep = 8
	shortenMark = 'x'
)

// cut records that the bytes of src from offset at on lie removed bytes
// further into doc (cumulative over all cuts up to this one).
type cut struct{ at, removed int }

// base64Run marks [A-Za-z0-9+].
var base64Run = func() (t [256]bool) {
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = true
		t[c+'a'-'A'] = true
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	t['+'] = true
	return t
}()

// allBase64Run reports whether the eight bytes packed in x are all in
// [A-Za-z0-9+], testing them at once: this loop is most of shorten's time.
// For bytes below 0x80, adding 0x80-lo sets a byte's high bit when it is
// at least lo, and no sum carries into the next byte.
func allBase64Run(x uint64) bool {
	const hi = 0x8080808080808080
	const ones = 0x0101010101010101
	if x&hi != 0 {
		return false
	}
	in := func(x uint64, lo, top byte) uint64 {
		return (x + ones*uint64(0x80-lo)) &^ (x + ones*uint64(0x7f-top)) & hi
	}
	letters := in(x|ones*0x20, 'a', 'z')
	digits := in(x, '0', '9')
	plus := in(x, '+', '+')
	return letters|digits|plus == hi
}

// shorten returns the text to tokenize for doc and where it differs from
// doc. It returns doc itself when there is nothing to shorten.
func shorten(doc []byte) ([]byte, []cut) {
	marker := []byte("base64,")
	var out []byte
	var cuts []cut
	last, removed := 0, 0
	for i := 0; ; {
		j := bytes.Index(doc[i:], marker)
		if j < 0 {
			break
		}
		p := i + j + len(marker)
		for p < len(doc) {
			r0 := p
			for p+8 <= len(doc) && allBase64Run(binary.LittleEndian.Uint64(doc[p:])) {
				p += 8
			}
			for p < len(doc) && base64Run[doc[p]] {
				p++
			}
			if p-r0 >= shortenMin {
				if out == nil {
					out = make([]byte, 0, len(doc))
				}
				out = append(out, doc[last:r0+shortenKeep]...)
				out = append(out, shortenMark)
				removed += p - r0 - 2*shortenKeep - 1
				last = p - shortenKeep
				cuts = append(cuts, cut{at: len(out), removed: removed})
			}
			if p < len(doc) && (doc[p] == '/' || doc[p] == '=') {
				p++
				continue
			}
			break
		}
		i = p
	}
	if out == nil {
		return doc, nil
	}
	return append(out, doc[last:]...), cuts
}

// docOffset maps an offset in c.src to the offset of the same byte in
// c.doc.
func (c *checker) docOffset(off int) int {
	if len(c.cuts) == 0 {
		return off
	}
	// Offsets come mostly in source order, a few at a time: start from
	// the cut of the last one.
	lo := c.cutHint
	if lo > 0 && c.cuts[lo-1].at > off || lo < len(c.cuts) && c.cuts[lo].at <= off {
		hi := len(c.cuts)
		lo = 0
		for lo < hi {
			m := (lo + hi) / 2
			if c.cuts[m].at <= off {
				lo = m + 1
			} else {
				hi = m
			}
		}
		c.cutHint = lo
	}
	if lo == 0 {
		return off
	}
	return off + c.cuts[lo-1].removed
}
