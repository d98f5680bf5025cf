package htmlcheck

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// FuzzCheck runs Check on arbitrary input, seeded with the whole corpus.
// Besides not panicking, it checks that every finding is well formed,
// that readAttrs agrees with the tokenizer, and that shortening base64
// never hides a finding.
func FuzzCheck(f *testing.F) {
	names, err := filepath.Glob("testdata/*/*.html")
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range names {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(""))
	f.Add([]byte("<svg><style>a{}</style><title><a download>x</a></title></svg>"))
	f.Add([]byte(`<a href="data:x;base64,AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/download">Download</a>`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		r := Check(doc, testOptions)
		for _, f := range append(r.Errors, r.Warnings...) {
			if err := checkFinding(doc, f); err != nil {
				t.Fatal(err)
			}
		}
		if len(doc) > MaxSize {
			return
		}
		if err := compareAttrs(doc); err != nil {
			t.Fatal(err)
		}
		if err := compareShortened(doc, r); err != nil {
			t.Fatal(err)
		}
	})
}

// compareShortened checks that r, the result of checking doc with long
// base64 shortened, has every finding that checking doc as it is has
// (unless its rule's cap was reached), at the same place, and that both
// tokenize doc the same way.
func compareShortened(doc []byte, r Result) error {
	src, _ := shorten(doc)
	if err := sameTokens(doc, src); err != nil {
		return err
	}
	c := newChecker(doc, testOptions)
	c.src, c.cuts = doc, nil
	c.run()
	plain := finish(doc, c.found)
	type key struct {
		rule      string
		line, col int
	}
	have := map[key]bool{}
	count := map[string]int{}
	for _, f := range append(r.Errors, r.Warnings...) {
		have[key{f.Rule, f.Line, f.Column}] = true
		count[f.Rule]++
	}
	for _, f := range append(plain.Errors, plain.Warnings...) {
		if !have[key{f.Rule, f.Line, f.Column}] && count[f.Rule] < ruleLimit(f.Rule) {
			return fmt.Errorf("shortening hides %s at %d:%d (%s); shortened findings: %v", f.Rule, f.Line, f.Column, f.Message, append(r.Errors, r.Warnings...))
		}
	}
	return nil
}

func ruleLimit(name string) int {
	for r := range numRules {
		if rules[r].name == name {
			return limit(r)
		}
	}
	return 0
}

// sameTokens checks that a and b tokenize to the same token types and tag
// names, where names do not come from a base64 payload.
func sameTokens(a, b []byte) error {
	za := html.NewTokenizer(bytes.NewReader(a))
	zb := html.NewTokenizer(bytes.NewReader(b))
	for i := 0; ; i++ {
		ta, tb := za.Next(), zb.Next()
		if ta != tb {
			return fmt.Errorf("token %d: %v in the document, %v shortened", i, ta, tb)
		}
		if ta == html.ErrorToken {
			return nil
		}
		if ta == html.StartTagToken || ta == html.EndTagToken || ta == html.SelfClosingTagToken {
			na, _ := za.TagName()
			nb, _ := zb.TagName()
			if !bytes.Equal(na, nb) && !bytes.Contains(a, []byte("base64,")) {
				return fmt.Errorf("token %d: <%s> in the document, <%s> shortened", i, na, nb)
			}
		}
	}
}

// FuzzDownloadReading runs the label reading on arbitrary text. Besides not
// panicking, it checks that readings are valid UTF-8 and that the ASCII
// fast path loses nothing: where needsSkeleton says the skeleton readings
// can be skipped, they match no more than the plain reading does.
func FuzzDownloadReading(f *testing.F) {
	for _, tt := range downloadEvasions {
		f.Add(tt.body)
	}
	for _, s := range []string{"Download", "DownIoad", "D0wnl0ad", "téléchargernent", "D o w n l o a d n o w", "\u202edaolnwoD", "\xff\xfeDown", "Do wn lo ad", "下 载"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, label string) {
		for _, f := range readings(nil, label, true, readCache{}) {
			if !utf8.ValidString(f.text) {
				t.Fatalf("reading %q of %q is not valid UTF-8", f.text, label)
			}
		}
		_, got := downloadReading(label, labelOpts{}, nil)
		if !isASCII(label) || needsSkeleton(strings.ToLower(label)) || needsSkeleton(label) {
			return
		}
		_, skelPlain, skelUnfolded, _, _ := spell(label, nil)
		for _, form := range []string{skelPlain, skelUnfolded} {
			if lexicons().skeleton.matches(form, labelOpts{}) && !got {
				t.Fatalf("%q: the skeleton reading %q matches, but needsSkeleton skipped it", label, form)
			}
		}
	})
}
