package htmlcheck

import (
	"html"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// referenceRunInstruction is findRunInstruction as it was written first:
// every window read again with regular expressions and plain searches.
// findRunInstruction must return what it returns.
func referenceRunInstruction(doc []byte) string {
	ctrlV := regexp.MustCompile(`^ctrl` + sp + `*(?:\+|＋)` + sp + `*v\b`)
	human := regexp.MustCompile(`^(?:verify|prove|confirm)` + sp + `+(?:that` + sp + `+)?you(?:'re|’re|` + sp + `+are)` + sp + `+(?:a` + sp + `+)?human`)
	sentence := func(text string, i, n int) string {
		w := text[i:min(len(text), i+n)]
		if j := strings.IndexAny(w, ".!?\n<"); j >= 0 {
			w = w[:j]
		}
		return w
	}
	containsWord := func(s, word string) bool {
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
	wordIndexes := func(s, word string) []int {
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
		w := sentence(text, i, 80)
		for _, target := range shellTargets {
			if containsWord(w, target) {
				return w
			}
		}
	}
	for _, i := range wordIndexes(text, "ctrl") {
		if ctrlV.MatchString(text[i:min(len(text), i+16)]) {
			if w := sentence(text, i, 80); containsWord(w, "enter") {
				return w
			}
		}
	}
	for _, w := range []string{"verify", "prove", "confirm"} {
		for _, i := range wordIndexes(text, w) {
			if m := human.FindString(text[i:min(len(text), i+48)]); m != "" {
				k, _ := slices.BinarySearch(pastes, i-600)
				if k < len(pastes) && pastes[k] <= i+len(m)+600 {
					return m
				}
			}
		}
	}
	return curlPipe(text)
}

// runPieces are what the documents of TestRunInstructionMatchesRegexps
// are made of: the words the ClickFix rules look for, pieces of them,
// what may separate them, and what ends a sentence.
var runPieces = []string{
	"paste", "pastes", "xpaste", "run", "runs", "xrun", "terminal", "powershell", "command", "prompt",
	"cmd", "console", "shell", "it", "into", "the", "dialog",
	"ctrl", "+", "＋", "v", "vx", "v_", "enter", "entered", "xenter",
	"verify", "prove", "confirm", "that", "you", "'re", "’re", "are", "a", "human", "humans",
	"curl", "|", "sh", "bash",
	" ", " ", " ", "  ", "\t", "\n", "\f", "\r", "\v", "\u00a0", "\xc2", "\xa0", "&nbsp;", "&amp;",
	".", "!", "?", "<", "_", "-", "1", "x", "é", "\xff",
}

// randomRunText builds a document of n pieces of runPieces, some of them
// upper-cased.
func randomRunText(rng *rand.Rand, n int) []byte {
	var b strings.Builder
	for range n {
		p := runPieces[rng.IntN(len(runPieces))]
		if rng.IntN(8) == 0 {
			p = strings.ToUpper(p)
		}
		b.WriteString(p)
	}
	return []byte(b.String())
}

// TestRunInstructionMatchesRegexps checks that findRunInstruction finds
// what reading every window with regular expressions finds
// (referenceRunInstruction), on made-up texts dense in near misses and on
// long repetitions, where its windows overlap most.
func TestRunInstructionMatchesRegexps(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 1))
	docs := [][]byte{
		[]byte("paste it into the run dialog"),
		[]byte("paste runx paste xrun. paste\nrun paste <run"),
		[]byte("ctrl+v then enter"),
		[]byte("ctrl ＋\u00a0v\u00a0enter"),
		[]byte("ctrl+v_ enter ctrl+venter"),
		[]byte("verify you are human paste"),
		[]byte("verify that you're a human paste"),
		[]byte("confirm  you’re \u00a0human " + strings.Repeat("x", 700) + " paste"),
		[]byte(strings.Repeat("paste ", 200) + "run"),
		[]byte(strings.Repeat("paste runx ", 200) + "shell"),
		[]byte(strings.Repeat("ctrl+v ", 200) + "enter"),
		[]byte(strings.Repeat("ctrl+v ", 20) + ". enter"),
		[]byte(strings.Repeat("verify you are human ", 100) + strings.Repeat("x", 600) + "paste"),
	}
	for range 20000 {
		docs = append(docs, randomRunText(rng, 1+rng.IntN(60)))
	}
	for _, doc := range docs {
		if got, want := findRunInstruction(doc), referenceRunInstruction(doc); got != want {
			t.Fatalf("findRunInstruction(%q) = %q, want %q", doc, got, want)
		}
	}
}

// FuzzRunInstruction compares findRunInstruction with
// referenceRunInstruction on any input.
func FuzzRunInstruction(f *testing.F) {
	rng := rand.New(rand.NewPCG(15, 2))
	for range 20 {
		f.Add(randomRunText(rng, 40))
	}
	f.Add([]byte("paste it into the run dialog"))
	f.Add([]byte("ctrl+v then enter"))
	f.Add([]byte("verify you are human, then paste"))
	f.Fuzz(func(t *testing.T, doc []byte) {
		if got, want := findRunInstruction(doc), referenceRunInstruction(doc); got != want {
			t.Fatalf("findRunInstruction(%q) = %q, want %q", doc, got, want)
		}
	})
}
