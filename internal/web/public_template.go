package web

import (
	"crypto/sha256"
	"encoding/base64"
	"html/template"
	"math"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// builtinTemplate is one of the template appearances a Pro or Agency owner
// can give their download pages. Its page is templates/tpl_<Name>.html,
// styled by static/templates.css.
type builtinTemplate struct {
	Name        string // stored in fileframe.Appearance.Template
	Label       string
	Description string
	// Accent is the colour used while the owner has not chosen one.
	Accent string
}

// builtinTemplates are the templates, in the order the editor offers them.
var builtinTemplates = []builtinTemplate{
	{"minimal", "Minimal", "Quiet white page, your accent as a thin line.", "#1d4ed8"},
	{"bold", "Bold", "Your accent colour fills the page, big headline.", "#e4572e"},
	{"photo", "Photo", "Your background image full-bleed, text on top.", "#0f766e"},
	{"card", "Card", "A document-like card on a tinted background.", "#6d28d9"},
}

// templateByName returns the built-in template called name.
func templateByName(name string) (builtinTemplate, bool) {
	for _, t := range builtinTemplates {
		if t.Name == name {
			return t, true
		}
	}
	return builtinTemplate{}, false
}

// Limits of the branding text, in characters.
const (
	maxHeadlineChars = 120
	maxMessageChars  = 1000
)

// templatePage is the data of the tpl_*.html pages.
type templatePage struct {
	filePage
	TemplateCSS string // static/templates.css with its content hash
	Template    string
	Headline    string
	Message     string
	LogoURL     string // empty when there is no logo
	BackURL     string // the background image; empty when there is none
	// Style is the page's one inline <style> element's content: the accent
	// colours as CSS custom properties (see accentStyle).
	Style template.CSS
}

// A template page's colours come from its owner, so they cannot live in a
// static stylesheet, and the public pages' CSP allows no inline style: not
// a style="" attribute, not a <style> element. Instead of loosening it,
// each page carries one <style> element that sets only three custom
// properties, built here from validated #rrggbb values, and the page's CSP
// allows exactly that element by its SHA-256 hash ('sha256-…' in
// style-src). Page and CSP are rendered together once per cache fill, so
// the hash costs nothing per request, and no other inline style can run.
// A per-accent stylesheet route would work too, at the price of one more
// request per first visit; classes for a fixed palette would not honour
// arbitrary brand colours.

// accentColors are the colours a template derives from an accent.
type accentColors struct {
	Accent   string // the accent itself, for fills and blocks
	OnAccent string // text on the accent: black or white, whichever contrasts more
	Ink      string // the accent darkened until it is AA text on white
}

// accentStyle returns the inline style of a page with accent a (#rrggbb,
// already valid) and the CSP style-src source that allows it.
func accentStyle(a string) (css string, source string) {
	c := deriveAccent(a)
	css = ":root{--tpl-accent:" + c.Accent + ";--tpl-on-accent:" + c.OnAccent + ";--tpl-ink:" + c.Ink + "}"
	sum := sha256.Sum256([]byte(css))
	return css, "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

// parseAccent returns s as a lower-case #rrggbb colour, or false.
func parseAccent(s string) (string, bool) {
	if len(s) != 7 || s[0] != '#' {
		return "", false
	}
	for _, c := range s[1:] {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return "", false
		}
	}
	return strings.ToLower(s), true
}

// rgb is a colour's channels, 0 to 255.
type rgb [3]float64

func hexRGB(s string) rgb {
	var c rgb
	for i := range c {
		v, _ := strconv.ParseUint(s[1+2*i:3+2*i], 16, 8)
		c[i] = float64(v)
	}
	return c
}

func (c rgb) hex() string {
	const digits = "0123456789abcdef"
	b := []byte{'#', 0, 0, 0, 0, 0, 0}
	for i, v := range c {
		n := int(math.Round(v))
		b[1+2*i], b[2+2*i] = digits[n>>4], digits[n&15]
	}
	return string(b)
}

// luminance is the WCAG 2 relative luminance of c
// (https://www.w3.org/TR/WCAG21/#dfn-relative-luminance).
func (c rgb) luminance() float64 {
	var l [3]float64
	for i, v := range c {
		v /= 255
		if v <= 0.04045 {
			l[i] = v / 12.92
		} else {
			l[i] = math.Pow((v+0.055)/1.055, 2.4)
		}
	}
	return 0.2126*l[0] + 0.7152*l[1] + 0.0722*l[2]
}

// contrast is the WCAG 2 contrast ratio of two colours, 1 to 21.
func contrast(a, b rgb) float64 {
	la, lb := a.luminance(), b.luminance()
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}

// The text colours a template puts on an accent. Every colour contrasts at
// least 4.58:1 with pure black or with pure white, so the better of the two
// always passes AA (4.5:1) for normal text. Any softer pair (a near-black)
// would not: TestDeriveAccent checks a dense sample of the colour cube.
var (
	onDark  = rgb{255, 255, 255}
	onLight = rgb{0, 0, 0}
	white   = rgb{255, 255, 255}
)

// deriveAccent returns the colours of accent a (#rrggbb).
func deriveAccent(a string) accentColors {
	c := hexRGB(a)
	on := onDark
	if contrast(c, onLight) > contrast(c, onDark) {
		on = onLight
	}
	// Darken in steps, rounding each to what the page will say, so the
	// colour checked is the colour shown.
	ink := c
	for contrast(ink, white) < 4.5 {
		for j := range ink {
			ink[j] = math.Floor(ink[j] * 0.92)
		}
	}
	return accentColors{Accent: a, OnAccent: on.hex(), Ink: ink.hex()}
}

// resolvedTemplate is an appearance with its built-in template found (a type of
// its own, so that nothing renders an appearance whose template is
// unknown). linkShows, in app_files.go, is the file list's summary.
type resolvedTemplate struct {
	tmpl       builtinTemplate
	appearance fileframe.Appearance
}

// resolveTemplate returns the template page of appearance a, and false when a shows no
// template page (none set, or a template this build does not have).
func resolveTemplate(a fileframe.Appearance) (resolvedTemplate, bool) {
	t, ok := templateByName(a.Template)
	if !ok {
		return resolvedTemplate{}, false
	}
	return resolvedTemplate{tmpl: t, appearance: a}, true
}

// imageURLs are where a template page loads its images from.
type imageURLs struct{ logo, background string }

// publicImageURLs are the visitors' addresses of a's images on the page at
// slug. The version parameter lets them be cached for a year.
func publicImageURLs(slug string, a fileframe.Appearance) imageURLs {
	base := "/f/" + url.PathEscape(slug) + "/"
	var u imageURLs
	if a.LogoKey != "" {
		u.logo = base + "logo?v=" + imageVersion(a.LogoKey)
	}
	if a.Background != "" {
		u.background = base + "background?v=" + imageVersion(a.Background)
	}
	return u
}

// imageVersion is the part of a blob key that image addresses carry.
func imageVersion(key string) string { return key[:min(len(key), 16)] }

// renderTemplatePage renders the template page l for file view fv, and
// returns the page and the CSP it needs; frameAncestors as in templateCSP.
func (s *Server) renderTemplatePage(l resolvedTemplate, fv fileView, img imageURLs, preview bool, frameAncestors string) ([]byte, string, error) {
	accent := l.tmpl.Accent
	if a, ok := parseAccent(l.appearance.Accent); ok {
		accent = a
	}
	css, source := accentStyle(accent)
	data := templatePage{
		filePage:    filePage{Assets: s.pages.assets, File: fv, Preview: preview},
		TemplateCSS: templatesCSSURL(),
		Template:    l.tmpl.Name,
		Headline:    l.appearance.Headline,
		Message:     l.appearance.Message,
		LogoURL:     img.logo,
		BackURL:     img.background,
		Style:       template.CSS(css),
	}
	body, err := s.pages.renderBytes("tpl_"+l.tmpl.Name+".html", data)
	if err != nil {
		return nil, "", err
	}
	return body, templateCSP(source, frameAncestors), nil
}

// templatesCSSURL is the address of static/templates.css with its hash.
var templatesCSSURL = sync.OnceValue(func() string { return appAssetURL("templates.css") })
