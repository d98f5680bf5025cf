package uba

import "golang.org/x/text/unicode/bidi"

// Class is a character's class in golang.org/x/text/unicode/bidi, under
// the names its core.go and bracket.go use.
type Class bidi.Class

const (
	L       = Class(bidi.L)
	R       = Class(bidi.R)
	EN      = Class(bidi.EN)
	ES      = Class(bidi.ES)
	ET      = Class(bidi.ET)
	AN      = Class(bidi.AN)
	CS      = Class(bidi.CS)
	B       = Class(bidi.B)
	S       = Class(bidi.S)
	WS      = Class(bidi.WS)
	ON      = Class(bidi.ON)
	BN      = Class(bidi.BN)
	NSM     = Class(bidi.NSM)
	AL      = Class(bidi.AL)
	Control = Class(bidi.Control)
	LRO     = Class(bidi.LRO)
	RLO     = Class(bidi.RLO)
	LRE     = Class(bidi.LRE)
	RLE     = Class(bidi.RLE)
	PDF     = Class(bidi.PDF)
	LRI     = Class(bidi.LRI)
	RLI     = Class(bidi.RLI)
	FSI     = Class(bidi.FSI)
	PDI     = Class(bidi.PDI)

	unknownClass = ^Class(0)
)
