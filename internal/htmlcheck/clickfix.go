package htmlcheck

import (
	"bytes"
	"html"
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

var (
	ctrlV = regexp.MustCompile(`^ctrl` + sp + `*(?:\+|＋)` + sp + `*v\b`)
	human = regexp.MustCompile(`^(?:verify|prove|confirm)` + sp + `+(?:that` + sp + `+)?you(?:'re|’re|` + sp + `+are)` + sp + `+(?:a` + sp + `+)?human`)
)

// shellTargets are where a ClickFix page says to paste.
var shellTargets = []string{"run", "terminal", "powershell", "command prompt", "cmd", "console", "shell"}

// findRunInstruction returns the first ClickFix-style instruction in doc,
// or "".
func findRunInstruction(doc []byte) string {
	text := strings.ToLower(html.UnescapeString(string(doc)))
	for _, p := range runPatterns {
		for _, w := range p.words {
			for _, i := range wordIndexes(text, w) {
				if m := p.re.FindString(text[i:min(len(text), i+p.window)]); m != "" {
					return m
				}
			}
		}
	}
	pastes := wordIndexes(text, "paste")
	for _, i := range pastes {
		// "paste it into the Run dialog": a target in the same sentence.
		w := sentence(text, i, 80)
		for _, target := range shellTargets {
			if containsWord(w, target) {
				return w
			}
		}
	}
	for _, i := range wordIndexes(text, "ctrl") {
		// "Ctrl+V, then Enter"
		if ctrlV.MatchString(text[i:min(len(text), i+16)]) {
			if w := sentence(text, i, 80); containsWord(w, "enter") {
				return w
			}
		}
	}
	for _, w := range []string{"verify", "prove", "confirm"} {
		for _, i := range wordIndexes(text, w) {
			// "verify you are human" near "paste"
			if m := human.FindString(text[i:min(len(text), i+48)]); m != "" {
				k, _ := slices.BinarySearch(pastes, i-600)
				if k < len(pastes) && pastes[k] <= i+len(m)+600 {
					return m
				}
			}
		}
	}
	// curl … | sh on one line
	nextPipe := -1
	for _, i := range wordIndexes(text, "curl") {
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

// sentence returns up to n bytes of text from i, cut at the end of the
// sentence or line.
func sentence(text string, i, n int) string {
	w := text[i:min(len(text), i+n)]
	if j := strings.IndexAny(w, ".!?\n<"); j >= 0 {
		w = w[:j]
	}
	return w
}

// containsWord reports whether word occurs in s between non-alphanumeric
// bytes.
func containsWord(s, word string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], word)
		if j < 0 {
			return false
		}
		p := i + j
		e := p + len(word)
		if (p == 0 || !isASCIIAlnum(s[p-1])) && (e == len(s) || !isASCIIAlnum(s[e])) {
			return true
		}
		i = p + 1
	}
}

// wordIndexes returns the offsets in s of word where it is not preceded
// by a letter or digit.
func wordIndexes(s, word string) []int {
	var idx []int
	for i := 0; ; {
		j := strings.Index(s[i:], word)
		if j < 0 {
			return idx
		}
		p := i + j
		if p == 0 || !isASCIIAlnum(s[p-1]) {
			idx = append(idx, p)
		}
		i = p + len(word)
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
