package htmlcheck

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// mayMatch never rules out a label that matches: every word, phrase and
// spaceless word of both lexicons, alone, among filler, spaced out letter
// by letter, split in parts and among random characters, and random mixes
// of all of these, are matched with and without mayMatch first.
func TestMayMatchRulesOutNoMatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	seps := []string{" ", "-", ".", " · ", "\u00a0", "", "_", "/", "1", " 2 "}
	for _, lex := range []*lexicon{plainLexicon, skeletonLexicon} {
		var entries []string
		for w := range lex.words {
			entries = append(entries, w)
		}
		for _, p := range lex.phrases {
			entries = append(entries, strings.Join(p, " "))
		}
		entries = append(entries, lex.spaceless...)
		var fillers []string
		for w := range lex.lead {
			fillers = append(fillers, w)
		}
		for w := range lex.trail {
			fillers = append(fillers, w)
		}
		pick := func(s []string) string { return s[rng.IntN(len(s))] }
		// variants of one entry: as it is, spaced out, split in parts.
		variants := func(w string) []string {
			r := []rune(w)
			out := []string{w}
			letters := make([]string, len(r))
			for i := range r {
				letters[i] = string(r[i])
			}
			out = append(out, strings.Join(letters, " "), strings.Join(letters, pick(seps)))
			for range 3 {
				if len(r) > 1 {
					i := 1 + rng.IntN(len(r)-1)
					out = append(out, string(r[:i])+pick(seps)+string(r[i:]))
				}
			}
			return out
		}
		matched, forms := 0, 0
		check := func(form string) {
			t.Helper()
			forms++
			for _, o := range []labelOpts{{}, {anywhere: true}} {
				if lex.matchWords(form, o) {
					matched++
					if !lex.mayMatch(form) {
						t.Fatalf("%q matches, but mayMatch rules it out", form)
					}
				}
			}
		}
		for _, w := range entries {
			for _, v := range variants(w) {
				check(v)
				check(pick(fillers) + " " + v)
				check(v + " " + pick(fillers))
				check(pick(fillers) + pick(seps) + v + pick(seps) + pick(fillers))
			}
		}
		for range 200_000 {
			var b strings.Builder
			for range 1 + rng.IntN(5) {
				switch rng.IntN(4) {
				case 0:
					b.WriteString(pick(variants(pick(entries))))
				case 1:
					b.WriteString(pick(fillers))
				case 2:
					w := []rune(pick(entries))
					b.WriteRune(w[rng.IntN(len(w))])
				default:
					b.WriteString(pick(seps))
				}
				b.WriteString(pick(seps))
			}
			check(b.String())
		}
		t.Logf("%d forms, %d matches", forms, matched)
		if matched < forms/10 {
			t.Fatalf("only %d of %d forms matched: the test proves little", matched, forms)
		}
	}
}

// FuzzMayMatch checks, on the readings of arbitrary labels, that mayMatch
// rules out no reading that matches.
func FuzzMayMatch(f *testing.F) {
	for _, tt := range downloadEvasions {
		f.Add(tt.body)
	}
	for _, s := range []string{"Download", "D0wnl0ad", "D o w n l o a d n o w", "Do wn lo ad", "下 载", "get the file", "Далее 1", "Д12"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, label string) {
		for _, fm := range readings(nil, label, true, readCache{}) {
			for _, o := range []labelOpts{{}, {anywhere: true}, {truncated: true}} {
				if fm.lex.matchWords(fm.text, o) && !fm.lex.mayMatch(fm.text) {
					t.Fatalf("%q: the reading %q matches, but mayMatch rules it out", label, fm.text)
				}
			}
		}
	})
}
