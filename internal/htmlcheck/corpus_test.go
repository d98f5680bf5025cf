package htmlcheck

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// testOptions are the options the corpus is checked with.
var testOptions = Options{ServiceHosts: []string{"files.example.com", "127.0.0.1:8080"}}

// corpus returns the names and contents of the files matching pattern.
func corpus(t testing.TB, pattern string) map[string][]byte {
	t.Helper()
	names, err := filepath.Glob(pattern)
	if err != nil {
		t.Fatal(err)
	}
	docs := make(map[string][]byte, len(names))
	for _, name := range names {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		docs[name] = b
	}
	return docs
}

func ruleNames(fs []Finding) []string {
	var names []string
	for _, f := range fs {
		names = append(names, f.Rule)
	}
	return names
}

func TestCorpusPass(t *testing.T) {
	docs := corpus(t, "testdata/pass/*.html")
	if got, want := len(docs), 25; got < want {
		t.Errorf("pass corpus has %d pages, want at least %d", got, want)
	}
	for name, doc := range docs {
		t.Run(filepath.Base(name), func(t *testing.T) {
			if n := len(doc); n < 1000 || n > 10*1024 {
				t.Errorf("size %d bytes, want 1-10 KB", n)
			}
			r := Check(doc, testOptions)
			for _, f := range r.Errors {
				t.Errorf("got error %s at %d:%d: %s [%s]", f.Rule, f.Line, f.Column, f.Message, f.Excerpt)
			}
			for _, f := range r.Warnings {
				t.Logf("warning %s at %d:%d: %s", f.Rule, f.Line, f.Column, f.Message)
			}
		})
	}
}

func TestCorpusFail(t *testing.T) {
	docs := corpus(t, "testdata/fail/*.html")
	if got, want := len(docs), 40; got < want {
		t.Errorf("fail corpus has %d pages, want at least %d", got, want)
	}
	covered := map[string]int{}
	for name, doc := range docs {
		base := filepath.Base(name)
		rule, _, ok := strings.Cut(base, "__")
		if !ok {
			t.Errorf("%s: name must be <rule>__<short-name>.html", base)
			continue
		}
		covered[rule]++
		t.Run(base, func(t *testing.T) {
			r := Check(doc, testOptions)
			got := ruleNames(r.Errors)
			if !slices.Contains(got, rule) {
				t.Errorf("got errors %v, want %s among them", got, rule)
			}
			if r.OK() {
				t.Errorf("got OK, want rejected")
			}
		})
	}
	for _, rule := range []string{RuleDocumentComplete, RuleDocumentSingle, RuleInlineScript, RuleInlineStyle,
		RuleImageSource, RuleDownloadButton, RulePhishingClipboard} {
		if got, want := covered[rule], 2; got < want {
			t.Errorf("fail corpus has %d pages for %s, want at least %d", got, rule, want)
		}
	}
}
