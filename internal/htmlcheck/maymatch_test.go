package htmlcheck

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// mayMatch never rules out a label that matches: every word, phrase and
// spaceless word of both lexicons, alone, among filler, spaced out letter
// by letter, split in parts and among random characters, and random mixes
// of all of these, are matched with and without mayMatch first.
func TestMayMatchRulesOutNoMatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	seps := []string{" ", "-", ".", " · ", "\u00a0", "", "_", "/", "1", " 2 "}
	for _, lex := range []*lexicon{lexicons().plain, lexicons().skeleton, lexicons().upper} {
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
		if readsAsDownload(label) && !mayReadAsDownload([]byte(label), readCache{}) {
			t.Fatalf("%q reads as a call to download, but mayReadAsDownload rules it out", label)
		}
	})
}

// readsAsDownload is downloadReading without mayReadAsDownload first, not
// reversed, in any of the ways a label is shown.
func readsAsDownload(label string) bool {
	for _, fm := range readings(nil, label, false, readCache{}) {
		for _, o := range []labelOpts{{}, {anywhere: true}, {truncated: true}} {
			if fm.lex.matches(fm.text, o) {
				return true
			}
		}
	}
	return false
}

// mayReadAsDownload never rules out a label that reads as a call to
// download: every entry of both lexicons as it is, in capitals, spaced
// out, split, among filler, with look-alike letters, marks, invisible
// characters and invalid bytes put in, and random mixes of them.
func TestMayReadAsDownloadRulesOutNoMatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var entries, fillers []string
	for _, lex := range []*lexicon{lexicons().plain, lexicons().skeleton, lexicons().upper} {
		for w := range lex.words {
			entries = append(entries, w)
		}
		for _, p := range lex.phrases {
			entries = append(entries, strings.Join(p, " "))
		}
		entries = append(entries, lex.spaceless...)
		for w := range lex.lead {
			fillers = append(fillers, w)
		}
	}
	slices.Sort(entries) // the maps' order would make the test's labels differ per run
	slices.Sort(fillers)
	pick := func(s []string) string { return s[rng.IntN(len(s))] }
	alike := map[rune][]string{
		'a': {"а", "ɑ", "ａ", "A"}, 'o': {"о", "ο", "0", "ｏ", "O"}, 'e': {"е", "ε", "E"}, 'd': {"ԁ", "ⅾ", "D"},
		'l': {"I", "1", "ӏ", "ⅼ"}, 'n': {"ո", "N"}, 'w': {"ѡ", "W", "ｗ"}, 'p': {"р", "P"}, 'c': {"с", "C"},
	}
	inserts := []string{"\u200b", "\u00ad", "\u0332", "\u0301", "\ufe0f", "\xff", " ", "-", "."}
	disguise := func(w string) string {
		var b strings.Builder
		for _, r := range w {
			if subs, ok := alike[r]; ok && rng.IntN(3) == 0 {
				b.WriteString(pick(subs))
			} else {
				b.WriteRune(r)
			}
			if rng.IntN(6) == 0 {
				b.WriteString(pick(inserts))
			}
		}
		return b.String()
	}
	matched, labels := 0, 0
	check := func(label string) {
		t.Helper()
		labels++
		if readsAsDownload(label) {
			matched++
			if !mayReadAsDownload([]byte(label), readCache{}) {
				t.Fatalf("%q reads as a call to download, but mayReadAsDownload rules it out", label)
			}
		}
	}
	for _, w := range entries {
		letters := strings.Split(w, "")
		check(w)
		check(strings.ToUpper(w))
		check(strings.Join(letters, " "))
		check(pick(fillers) + " " + w)
		// Between the first two characters, where mayMatch looks.
		if r, n := utf8.DecodeRuneInString(w); r != utf8.RuneError {
			for _, in := range inserts {
				check(w[:n] + in + w[n:])
			}
		}
		for range 5 {
			check(disguise(w))
			check(pick(fillers) + " " + disguise(w) + " " + pick(fillers))
		}
	}
	for range 50_000 {
		var b strings.Builder
		for range 1 + rng.IntN(4) {
			switch rng.IntN(3) {
			case 0:
				b.WriteString(disguise(pick(entries)))
			case 1:
				b.WriteString(pick(fillers))
			default:
				b.WriteString(pick(inserts))
			}
			b.WriteString(" ")
		}
		check(b.String())
	}
	t.Logf("%d labels, %d read as a call to download", labels, matched)
	if matched < labels/10 {
		t.Fatalf("only %d of %d labels matched: the test proves little", matched, labels)
	}
}
