package htmlcheck

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mtibben/confusables"
	"golang.org/x/text/unicode/norm"
)

// A label is matched against the download words as a visitor reads it,
// not as its bytes spell it. Four readings of one label are matched:
//
//   - the plain reading: compatibility-decomposed (NFKD: the mapping of
//     NFKC without recomposition, so that accents can be dropped; full-width,
//     mathematical, circled and other styled letters and ligatures
//     become plain letters), without the characters that draw nothing
//     (default-ignorable code points: zero-width spaces and joiners, soft
//     hyphens, bidi controls, the BOM, variation selectors, Hangul
//     fillers), without the tatweel, which only lengthens a stroke, and
//     without combining marks (accents, "Zalgo" underlines), lower-cased;
//   - its confusables skeleton (Unicode TR39, section 4), read again the
//     same way, so that "Dοwnload" with a Greek omicron or "D0wnl0ad"
//     reads as "download";
//   - the skeleton of the plain reading before lower-casing, so that a
//     capital I standing for a small l ("DownIoad") is caught too;
//   - the skeleton of each character's capital, so that letters of two
//     scripts whose capitals are look-alikes read alike ("Ckачать").
//
// Labels and word lists are both read character by character with the
// same functions (see spell and newLexicon), so the comparison is
// symmetric: a word with accents and one typed without them compare
// equal, and so do a word and its look-alike.
//
// Dropping marks is NFKD followed by removing Mn and Me, which also drops
// the vowel signs and viramas of some scripts and the voicing marks of
// kana; it does so on both sides of the comparison, so the only effect is
// that a few look-alike spellings compare equal.

// invisible reports whether r draws nothing a reader would notice inside
// a word: a default-ignorable code point (Unicode's
// Default_Ignorable_Code_Point is Cf, Variation_Selector and
// Other_Default_Ignorable_Code_Point, less a few that do not matter here)
// or a combining mark.
func invisible(r rune) bool {
	return r == tatweel || unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point)
}

// visibleLetter reports whether r is a letter that draws something: a
// letter that is not invisible, which for a letter means not the tatweel
// and not a Hangul filler (Other_Default_Ignorable_Code_Point): no letter
// is a mark, a format character or a variation selector.
func visibleLetter(r rune) bool {
	return unicode.IsLetter(r) && r != tatweel && !unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r)
}

// tatweel (U+0640, a letter of Unicode's Lm) lengthens the joining stroke
// between two Arabic letters: "تحـميل" reads as "تحميل", and
// "Dow\u0640nload" as "Download" with a longer baseline.
const tatweel = '\u0640'

// unfoldedReading returns the plain reading of s before lower-casing:
// NFKD without invisible characters. Invalid UTF-8 reads as spaces.
func unfoldedReading(s string) string {
	if isASCII(s) {
		return s
	}
	return strings.Map(dropInvisible, norm.NFKD.String(strings.ToValidUTF8(s, " ")))
}

func dropInvisible(r rune) rune {
	switch {
	case invisible(r):
		return -1
	case r == araea:
		// A letter of Middle Korean that fonts draw as a centred dot:
		// between letters it reads as the dot, which separates them
		// ("Down\u318Dload", "다운\u318D로드").
		return '·'
	}
	return r
}

// araea is U+119E, which the compatibility letter ㆍ (U+318D) decomposes
// to.
const araea = '\u119e'

// withoutMarks returns s decomposed (NFD) without its combining marks.
func withoutMarks(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.In(r, unicode.Mn, unicode.Me) {
			return -1
		}
		return r
	}, norm.NFD.String(s))
}

// skeleton returns the confusables skeleton of s, a reading, lower-cased
// and without the invisible characters that the skeleton's decomposition
// brings back. (Its letters need no second NFKD: both sides of a
// comparison are read the same way.)
func skeleton(s string) string {
	return strings.ToLower(strings.Map(dropInvisible, confusables.Skeleton(s)))
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// asciiSkeleton says, for each ASCII byte, whether the skeleton maps it to
// something else, unless it is a lower-case letter mapped to lower-case
// letters ('0' to 'O', 'I' and '1' to 'l', '|', quotes, '%');
// asciiSkeletonLetters are the letters that those lower-case letters map
// to ("rn" for 'm'). Both are read from the confusables table.
var asciiSkeleton, asciiSkeletonLetters = func() (t [utf8.RuneSelf]bool, letters []string) {
	for b := range utf8.RuneSelf {
		k := confusables.Skeleton(string(rune(b)))
		switch {
		case k == string(rune(b)):
		case 'a' <= b && b <= 'z' && strings.Trim(k, "abcdefghijklmnopqrstuvwxyz") == "":
			letters = append(letters, k)
		default:
			t[b] = true
		}
	}
	return t, letters
}()

// needsSkeleton reports whether the skeleton readings of s, which is
// ASCII, can match where its plain reading does not: when s has a byte
// that the skeleton maps to something else than lower-case letters, or
// has the letters that one maps to: a letter mapped to letters ('m' to
// "rn") maps the same way in the word lists, so on its own it changes
// nothing. This keeps the skeleton, which allocates, off most labels.
func needsSkeleton(s string) bool {
	for i := 0; i < len(s); i++ {
		if asciiSkeleton[s[i]] {
			return true
		}
	}
	for _, k := range asciiSkeletonLetters {
		if strings.Contains(s, k) {
			return true
		}
	}
	return false
}

// form is one reading of a label and the word lists it is matched with.
type form struct {
	text string
	lex  *lexicon
}

// runeReadings are the readings of one character: plain before and after
// lower-casing, and the skeletons of both.
// skelUpper is the skeleton of the character in capitals (lower-cased,
// as every skeleton here), which reads letters of two scripts alike where
// only their capitals are look-alikes: the Cyrillic "к" and "т" have no
// Latin look-alike, their capitals "К" and "Т" do, so "Ckачать" and
// "CKAЧATЬ", in Latin and Cyrillic letters, read as "Скачать".
type runeReadings struct{ unfolded, plain, skelPlain, skelUnfolded, skelUpper string }

func readRune(r rune) runeReadings {
	u := unfoldedReading(string(r))
	p := strings.ToLower(u)
	rr := runeReadings{u, p, skeleton(p), skeleton(u), skeleton(strings.ToUpper(u))}
	// A letter that compatibility decomposition turns into another shape
	// looks like what the skeleton of the letter itself says: the lunate
	// sigmas Ϲ and ϲ decompose to Σ and ς, and look like C and c.
	if raw := skeleton(string(r)); isASCII(raw) && !isASCII(rr.skelUnfolded) {
		rr.skelPlain, rr.skelUnfolded, rr.skelUpper = raw, raw, raw
	}
	return rr
}

// asciiReadings are the readings of the ASCII characters.
var asciiReadings = func() (t [utf8.RuneSelf]runeReadings) {
	for r := range rune(utf8.RuneSelf) {
		t[r] = readRune(r)
	}
	return t
}()

// readCache remembers the readings of the characters that one check
// meets: the normalisation and skeleton tables take microseconds per
// label, a map lookup per character takes nanoseconds.
type readCache map[rune]runeReadings

// maxReadCache bounds a readCache.
const maxReadCache = 4096

func (c readCache) get(r rune) runeReadings {
	if r < utf8.RuneSelf {
		return asciiReadings[r]
	}
	if rr, ok := c[r]; ok {
		return rr
	}
	rr := readRune(r)
	if c != nil && len(c) < maxReadCache {
		c[r] = rr
	}
	return rr
}

// spell returns the readings of s, character by character: plain, the
// skeleton of plain, the skeleton before lower-casing, the skeleton in
// capitals, and whether the third can differ from the second (s has
// upper-case letters). Invalid UTF-8 reads as spaces.
//
// Reading character by character is reading the whole string, less the
// canonical reordering of combining marks, which are dropped. Labels and
// word lists are both spelt this way.
func spell(s string, cache readCache) (plain, skelPlain, skelUnfolded, skelUpper string, cased bool) {
	// One pass, one lookup of each character's readings; the four
	// readings are built side by side and joined in one allocation.
	var bufs [4][128]byte // most labels: one allocation, for the result
	p, sp, su, sc := bufs[0][:0], bufs[1][:0], bufs[2][:0], bufs[3][:0]
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			r = ' '
		}
		i += n
		rr := cache.get(r)
		p = append(p, rr.plain...)
		sp = append(sp, rr.skelPlain...)
		su = append(su, rr.skelUnfolded...)
		sc = append(sc, rr.skelUpper...)
		cased = cased || rr.unfolded != rr.plain
	}
	var joined [4 * 128]byte
	all := string(append(append(append(append(joined[:0], p...), sp...), su...), sc...))
	a, b, c := len(p), len(p)+len(sp), len(p)+len(sp)+len(su)
	return all[:a], all[a:b], all[b:c], all[c:], cased
}

// readings appends to forms the readings of label that are matched: the plain
// one, then, where they can differ from it, the three skeletons; and when
// reversed (the label may be drawn right to left), each of them with its
// characters in reverse order too.
func readings(forms []form, label string, reversed bool, cache readCache) []form {
	ascii := isASCII(label)
	var plain string
	if ascii {
		plain = strings.ToLower(label)
	}
	lx := lexicons()
	if ascii && !needsSkeleton(plain) && !needsSkeleton(label) {
		forms = append(forms, form{plain, lx.plain})
	} else {
		plain, skelPlain, skelUnfolded, skelUpper, cased := spell(label, cache)
		forms = append(forms, form{plain, lx.plain}, form{skelPlain, lx.skeleton})
		if cased && skelUnfolded != skelPlain {
			forms = append(forms, form{skelUnfolded, lx.skeleton})
		}
		if !ascii {
			// An ASCII letter's capital is a look-alike of no other
			// ASCII letter than itself: nothing to read again.
			forms = append(forms, form{skelUpper, lx.upper})
		}
	}
	if reversed {
		for _, f := range forms {
			forms = append(forms, form{reverseRunes(f.text), f.lex})
		}
	}
	return forms
}

func reverseRunes(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}

// rightToLeftOverride is U+202E, which draws the text after it in reverse.
const rightToLeftOverride = "\u202e"

var rightToLeftOverrideBytes = []byte(rightToLeftOverride)
