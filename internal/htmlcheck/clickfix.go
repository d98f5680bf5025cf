package htmlcheck

import (
	"bytes"
	"html"
	"iter"
	"regexp"
	"slices"
	"strings"
)

// The instructions of a ClickFix page: open the Run dialog or a shell,
// paste what the page put on the clipboard, press Enter. They are only
// looked for when a script writes the clipboard, so that a "copy coupon
// code" button with "paste it at checkout" stays allowed. Text is matched
// lower-cased with character references decoded.
//
// A hostile page can be 1 MiB of near misses, so each pattern is tried
// only where one of its first words occurs, anchored there and on a short
// window, and "near" is checked in code: the cost stays linear.
const sp = `[\s\x{a0}]`

// runPatterns are the instructions that need no second part.
var runPatterns = []struct {
	words  []string // a match starts with one of these
	window int
	re     *regexp.Regexp // anchored
}{
	// press Win+R, Windows key + R, ⊞ Win + R, Win and R
	{[]string{"win", "⊞"}, 48, regexp.MustCompile(`^(?:⊞` + sp + `*(?:win)?|win(?:dows)?(?:` + sp + `*logo)?(?:` + sp + `*key)?)` + sp + `*(?:\+|＋|and|&|plus)` + sp + `*(?:the` + sp + `+)?(?:letter` + sp + `+)?["'“‘]?r\b`)},
	// open PowerShell / Terminal / the Run dialog / a command prompt
	{[]string{"open", "launch", "start", "run"}, 64, regexp.MustCompile(`^(?:open|launch|start|run)` + sp + `+(?:up` + sp + `+)?(?:a` + sp + `+|an` + sp + `+|the` + sp + `+|your` + sp + `+)?(?:new` + sp + `+)?(?:windows` + sp + `+)?(?:powershell|terminal|command` + sp + `+prompt|command` + sp + `+line|cmd\b|run` + sp + `+(?:dialog|box|window|prompt|command))`)},
	// macOS: Cmd+Space, then Terminal
	{[]string{"cmd", "command", "⌘"}, 24, regexp.MustCompile(`^(?:cmd|command|⌘)` + sp + `*(?:\+|＋)` + sp + `*space\b`)},
	// a shell payload in the page itself
	{[]string{"powershell", "mshta", "cmd", "iex", "invoke-expression", "bitsadmin", "certutil", "msiexec"}, 24,
		regexp.MustCompile(`^(?:powershell(?:\.exe)?` + sp + `+-|mshta(?:\.exe)?` + sp + `|cmd(?:\.exe)?` + sp + `*/c\b|iex` + sp + `*\(|invoke-expression\b|bitsadmin\b|certutil\b|msiexec\b)`)},
}

// shellTargets are where a ClickFix page says to paste.
var shellTargets = []string{"run", "terminal", "powershell", "command prompt", "cmd", "console", "shell"}

// findRunInstruction returns the first ClickFix-style instruction in doc,
// or "".
//
// Each place where a first word occurs is looked at in a window of a few
// dozen bytes; what the windows have in common is not searched again
// (see sentenceEnds and wordScan), so that 1 MiB of "paste paste …" costs
// one pass over it, not one search of each window per target.
// TestRunInstructionMatchesRegexps and FuzzRunInstruction compare it with
// a plain reading of every window with regular expressions.
func findRunInstruction(doc []byte) string {
	text := strings.ToLower(html.UnescapeString(string(doc)))
	for _, p := range runPatterns {
		for _, w := range p.words {
			for i := range wordStarts(text, w) {
				if m := p.re.FindString(text[i:min(len(text), i+p.window)]); m != "" {
					return m
				}
			}
		}
	}
	var pastes []int
	for i := range wordStarts(text, "paste") {
		pastes = append(pastes, i)
	}
	if len(pastes) > 0 {
		// "paste it into the Run dialog": a target in the same sentence.
		ends := sentenceEnds{text: text, n: 80, stop: -1}
		targets := make([]wordScan, len(shellTargets))
		for k, target := range shellTargets {
			targets[k] = wordScan{text: text, word: target, next: -1}
		}
		for _, i := range pastes {
			e := ends.end(i)
			for k := range targets {
				if targets[k].in(i, e) {
					return text[i:e]
				}
			}
		}
	}
	ends := sentenceEnds{text: text, n: 80, stop: -1}
	enter := wordScan{text: text, word: "enter", next: -1}
	for i := range wordStarts(text, "ctrl") {
		// "Ctrl+V, then Enter"
		if ctrlV(text[i:min(len(text), i+16)]) {
			if e := ends.end(i); enter.in(i, e) {
				return text[i:e]
			}
		}
	}
	for _, w := range []string{"verify", "prove", "confirm"} {
		for i := range wordStarts(text, w) {
			// "verify you are human" near "paste"
			if m := verifyHuman(text[i:min(len(text), i+48)]); m != "" {
				k, _ := slices.BinarySearch(pastes, i-600)
				if k < len(pastes) && pastes[k] <= i+len(m)+600 {
					return m
				}
			}
		}
	}
	return curlPipe(text)
}

// curlPipe returns the first "curl … | sh" on one line of text, or "".
func curlPipe(text string) string {
	nextPipe := -1
	for i := range wordStarts(text, "curl") {
		if nextPipe < i {
			nextPipe = len(text)
			if k := strings.IndexByte(text[i:], '|'); k >= 0 {
				nextPipe = i + k
			}
		}
		if nextPipe >= len(text) {
			break
		}
		if nextPipe-i > 200 || strings.IndexByte(text[i:nextPipe], '\n') >= 0 {
			continue
		}
		rest := strings.TrimLeft(text[nextPipe+1:min(len(text), nextPipe+12)], " \t")
		for _, sh := range []string{"sh", "bash", "zsh"} {
			if strings.HasPrefix(rest, sh) && (len(rest) == len(sh) || !isASCIIAlnum(rest[len(sh)])) {
				return text[i:min(len(text), nextPipe+8)]
			}
		}
	}
	return ""
}

// skipSpace returns the offset of the first byte of s from i on that is
// not white space as the regular expression \s reads it ([\t\n\f\r ])
// or a no-break space.
func skipSpace(s string, i int) int {
	for i < len(s) {
		switch {
		case s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\f' || s[i] == '\r':
			i++
		case strings.HasPrefix(s[i:], "\u00a0"):
			i += len("\u00a0")
		default:
			return i
		}
	}
	return i
}

// ctrlV reports whether s begins with "ctrl+v", the plus sign a plus or
// a full-width plus with white space around it, and "v" a whole word:
// the regular expression ^ctrl[\s\x{a0}]*(?:\+|＋)[\s\x{a0}]*v\b.
func ctrlV(s string) bool {
	if !strings.HasPrefix(s, "ctrl") {
		return false
	}
	i := skipSpace(s, len("ctrl"))
	switch {
	case strings.HasPrefix(s[i:], "+"):
		i += len("+")
	case strings.HasPrefix(s[i:], "＋"):
		i += len("＋")
	default:
		return false
	}
	i = skipSpace(s, i)
	if i == len(s) || s[i] != 'v' {
		return false
	}
	i++
	return i == len(s) || !isASCIIAlnum(s[i]) && s[i] != '_'
}

// verifyHuman returns the "verify you are human" that s begins with, or
// "": the match of the regular expression
// ^(?:verify|prove|confirm)S+(?:thatS+)?you(?:'re|’re|S+are)S+(?:aS+)?human,
// S being [\s\x{a0}].
func verifyHuman(s string) string {
	i := 0
	for _, w := range []string{"verify", "prove", "confirm"} {
		if strings.HasPrefix(s, w) {
			i = len(w)
			break
		}
	}
	// spaces returns where the white space after s[:i] ends, or -1 when
	// there is none.
	spaces := func(i int) int {
		if j := skipSpace(s, i); j > i {
			return j
		}
		return -1
	}
	if i == 0 {
		return ""
	}
	if i = spaces(i); i < 0 {
		return ""
	}
	if strings.HasPrefix(s[i:], "that") {
		if j := spaces(i + len("that")); j >= 0 {
			i = j
		}
	}
	if !strings.HasPrefix(s[i:], "you") {
		return ""
	}
	i += len("you")
	switch {
	case strings.HasPrefix(s[i:], "'re"):
		i += len("'re")
	case strings.HasPrefix(s[i:], "’re"):
		i += len("’re")
	default:
		if i = spaces(i); i < 0 || !strings.HasPrefix(s[i:], "are") {
			return ""
		}
		i += len("are")
	}
	if i = spaces(i); i < 0 {
		return ""
	}
	if strings.HasPrefix(s[i:], "a") {
		if j := spaces(i + len("a")); j >= 0 {
			i = j
		}
	}
	if !strings.HasPrefix(s[i:], "human") {
		return ""
	}
	return s[:i+len("human")]
}

// sentenceEnds finds where the sentences that begin at offsets of text
// that do not decrease from one call to the next end: text[i:end(i)] is
// sentence(text, i, n). It searches each byte for the end of a sentence
// once.
type sentenceEnds struct {
	text string
	n    int
	stop int // the first end of a sentence at or after the last i, len(text) if none; -1 before the first
}

func (s *sentenceEnds) end(i int) int {
	if s.stop < i {
		s.stop = len(s.text)
		if j := strings.IndexAny(s.text[i:], sentenceStops); j >= 0 {
			s.stop = i + j
		}
	}
	return min(i+s.n, s.stop, len(s.text))
}

// sentenceStops end a sentence.
const sentenceStops = ".!?\n<"

// wordScan answers containsWord(text[i:e], word) for offsets i that do
// not decrease from one call to the next, in constant time amortized over
// a pass over text: an occurrence inside text[i:e] counts when it is a
// whole word of text, which it keeps the next of; one at either end needs
// a boundary on its inner side only.
type wordScan struct {
	text, word string
	next       int // the first whole word after the last i, len(text) if none; -1 before the first call
}

func (s *wordScan) in(i, e int) bool {
	t, n := s.text, len(s.word)
	if e-i < n {
		return false
	}
	// (The first bytes are compared first: most windows begin with
	// another word and end inside one.)
	if t[i] == s.word[0] && t[i:i+n] == s.word && (i+n == e || !isASCIIAlnum(t[i+n])) ||
		t[e-n] == s.word[0] && t[e-n:e] == s.word && (e-n == i || !isASCIIAlnum(t[e-n-1])) {
		return true
	}
	for from := s.next + 1; s.next <= i; {
		from = max(from, i+1)
		j := strings.Index(t[from:], s.word)
		if j < 0 {
			s.next = len(t)
			break
		}
		q := from + j
		if !isASCIIAlnum(t[q-1]) && q+n < len(t) && !isASCIIAlnum(t[q+n]) {
			s.next = q
			break
		}
		from = q + 1
	}
	return s.next+n < e
}

// wordStarts yields the offsets in s of word where it is not preceded by
// a letter or digit.
func wordStarts(s, word string) iter.Seq[int] {
	return func(yield func(int) bool) {
		for i := 0; ; {
			j := strings.Index(s[i:], word)
			if j < 0 {
				return
			}
			p := i + j
			if (p == 0 || !isASCIIAlnum(s[p-1])) && !yield(p) {
				return
			}
			i = p + len(word)
		}
	}
}

func isASCIIAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// summarize shortens s to at most n runes on one line, for messages.
func summarize(s string, n int) string {
	s = strings.Join(strings.Fields(strings.ToValidUTF8(s, "\uFFFD")), " ")
	r := []rune(s)
	if len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// hasNonSpace reports whether b holds anything but white space (including
// no-break spaces and byte order marks).
func hasNonSpace(b []byte) bool {
	for i := 0; i < len(b); {
		switch {
		case b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r' || b[i] == '\f' || b[i] == '\v':
			i++
		case bytes.HasPrefix(b[i:], []byte("\u00a0")):
			i += len("\u00a0")
		case bytes.HasPrefix(b[i:], []byte("\ufeff")):
			i += len("\ufeff")
		default:
			return true
		}
	}
	return false
}
