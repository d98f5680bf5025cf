package htmlcheck

import (
	"bytes"
	"html"
	"regexp"
	"strings"
)

// runInstructions match, in lower-cased text with entities decoded, the
// instructions of a ClickFix page: open the Run dialog or a shell, paste
// what the page put on the clipboard, press Enter. They are only looked
// for when a script writes the clipboard, so that a "copy coupon code"
// button with "paste it at checkout" stays allowed.
var runInstructions = func() []*regexp.Regexp {
	const sp = `[\s\x{a0}]`
	exprs := []string{
		// press Win+R, Windows key + R, ⊞ Win + R, Win and R
		`(?:⊞|\bwin(?:dows)?(?:` + sp + `*logo)?(?:` + sp + `*key)?)` + sp + `*(?:\+|＋|and|&|plus)` + sp + `*(?:the` + sp + `+)?(?:letter` + sp + `+)?["'“‘]?r\b`,
		// open PowerShell / Terminal / the Run dialog / a command prompt
		`\b(?:open|launch|start|run)` + sp + `+(?:up` + sp + `+)?(?:a` + sp + `+|an` + sp + `+|the` + sp + `+|your` + sp + `+)?(?:new` + sp + `+)?(?:windows` + sp + `+)?(?:powershell|terminal|command` + sp + `+prompt|command` + sp + `+line|cmd\b|run` + sp + `+(?:dialog|box|window|prompt|command))`,
		// paste it into Run / the terminal / PowerShell
		`\bpaste\b[^.!?\n<]{0,60}?\b(?:run\b|terminal|powershell|command` + sp + `+prompt|cmd\b|console|shell)`,
		// Ctrl+V then Enter
		`\bctrl` + sp + `*(?:\+|＋)` + sp + `*v\b[^.!?\n]{0,80}?\benter\b`,
		// macOS: Cmd+Space, then Terminal
		`(?:\bcmd|\bcommand|⌘)` + sp + `*(?:\+|＋)` + sp + `*space`,
		// verify you are human … paste
		`(?:verify|prove|confirm)` + sp + `+(?:that` + sp + `+)?you(?:'re|’re|` + sp + `+are)` + sp + `+(?:a` + sp + `+)?human[\s\S]{0,600}?\bpaste\b`,
		`\bpaste\b[\s\S]{0,600}?(?:verify|prove|confirm)` + sp + `+(?:that` + sp + `+)?you(?:'re|’re|` + sp + `+are)` + sp + `+(?:a` + sp + `+)?human`,
		// a shell payload in the page itself
		`\bpowershell(?:\.exe)?` + sp + `+-|\bmshta(?:\.exe)?` + sp + `|\bcmd(?:\.exe)?` + sp + `*/c\b|\bcurl` + sp + `[^|\n]{0,200}\|` + sp + `*(?:ba|z)?sh\b|\biex` + sp + `*\(|\binvoke-expression\b|\bbitsadmin\b|\bcertutil\b`,
	}
	res := make([]*regexp.Regexp, len(exprs))
	for i, e := range exprs {
		res[i] = regexp.MustCompile(e)
	}
	return res
}()

// findRunInstruction returns the first ClickFix-style instruction in doc,
// or "".
func findRunInstruction(doc []byte) string {
	text := strings.ToLower(html.UnescapeString(string(doc)))
	for _, re := range runInstructions {
		if m := re.FindString(text); m != "" {
			return m
		}
	}
	return ""
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
