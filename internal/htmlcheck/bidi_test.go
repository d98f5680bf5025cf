package htmlcheck

import (
	"strconv"
	"strings"
	"testing"
)

// A check orders at most maxDrawnBytes of labels; a page with more is
// refused, on the label past the bound, rather than read in part.
func TestDrawnOrderBound(t *testing.T) {
	labels := func(n int) []byte {
		var b strings.Builder
		for i := range n {
			b.WriteString(`<p><a href="#">&#x202E;ab` + strconv.Itoa(i) + `&#x202C;</a></p>`)
		}
		return []byte(page(b.String()))
	}
	// Each label is 9 to 12 bytes, counted with 16 more; all differ, as
	// the check remembers the labels it read.
	under, over := maxDrawnBytes/30, maxDrawnBytes/24
	r := Check(labels(under), testOptions)
	if len(r.Errors) != 0 {
		t.Fatalf("%d labels: %v", under, r.Errors)
	}
	r = Check(labels(over), testOptions)
	if len(r.Errors) != 1 || r.Errors[0].Rule != RuleDownloadButton || !strings.Contains(r.Errors[0].Message, "cannot all be read in the order they are drawn") {
		t.Fatalf("%d labels: %v", over, r.Errors)
	}
	if !strings.HasPrefix(r.Errors[0].Excerpt, `<a href="#">`) {
		t.Errorf("the finding's excerpt is %q, not the link", r.Errors[0].Excerpt)
	}
}
