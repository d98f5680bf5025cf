package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// writeIndex writes dir/README.md: every screen of the table whose images
// are in dir, so that a run of a few screens (-only) keeps the others
// listed.
func writeIndex(dir string) error {
	var list []screen
	for _, sc := range screens {
		found := true
		for _, sz := range sizes {
			if _, err := os.Stat(filepath.Join(dir, imageName(sc, sz))); errors.Is(err, fs.ErrNotExist) {
				found = false
			} else if err != nil {
				return err
			}
		}
		if found {
			list = append(list, sc)
		}
	}
	var b strings.Builder
	b.WriteString("# Screenshots\n\n")
	b.WriteString("Every screen of Fileframe's web application, on a desktop and on a phone, taken in\n" +
		"headless Chromium from a fresh instance filled with demo data. Regenerate them with\n" +
		"`scripts/screenshots` (`go run ./internal/tools/screenshots -out docs/screenshots`, which\n" +
		"also takes `-only NAME,NAME`); the images are full pages at a device scale factor of 1.\n\n" +
		"The statistics in the stats screens (23 to 25) are synthetic: no visitor made them. The tool\n" +
		"writes 30 days of history with the store's `AddStats`, one batch a day from a seeded generator\n" +
		"(views by hour, unique visitors and those who downloaded, referrers, UTM parameters and devices),\n" +
		"and an A/B test of two revisions of a page with enough visitors for a verdict (`stats.go`).\n\n")
	for _, sc := range list {
		fmt.Fprintf(&b, "- %s —", sc.title)
		for i, sz := range sizes {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, " [%s](%s)", sz.name, imageName(sc, sz))
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
	header := "|"
	rule := "|"
	for _, sz := range sizes {
		header += fmt.Sprintf(" %s, %d×%d |", titleCase(sz.name), sz.width, sz.height)
		rule += "---|"
	}
	for _, sc := range list {
		fmt.Fprintf(&b, "## %s\n\n`%s`, as %s.\n\n%s\n%s\n|", sc.title, sc.name, sc.as, header, rule)
		for _, sz := range sizes {
			f := imageName(sc, sz)
			fmt.Fprintf(&b, " [![%s, %s](%s)](%s) |", sc.title, sz.name, f, f)
		}
		b.WriteString("\n\n")
	}
	// The link preview card (card.go), when a run has saved it.
	if _, err := os.Stat(filepath.Join(dir, cardImage)); err == nil {
		fmt.Fprintf(&b, "## Link preview card\n\n`%s`: the og:image of a link (here the account's Card appearance), 1200×630, as Slack's crawler fetches it from `/f/<slug>/card.png`.\n\n![Link preview card](%s)\n\n", cardImage, cardImage)
	}
	return os.WriteFile(filepath.Join(dir, "README.md"), []byte(b.String()), 0o644)
}

// titleCase capitalises the first letter of an ASCII word.
func titleCase(s string) string { return strings.ToUpper(s[:1]) + s[1:] }
