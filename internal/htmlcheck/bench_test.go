// Benchmarks of Check on 1 MiB pages.
//
//	go test ./internal/htmlcheck -run '^$' -bench Check1MiB -benchtime 200x -count 5
//
// On the 2-core development machine (AMD EPYC, go1.26.8), shared with
// other builds at a load average of 5 to 11 while measured:
//
//	BenchmarkCheck1MiB        4.8-7.7 ms/op (best 4.8 ms; 5.0 ms of CPU per op with GOMAXPROCS=1)
//	BenchmarkCheck1MiBMarkup  9.6-15 ms/op  (best 9.6 ms; 9.1 ms of CPU per op with GOMAXPROCS=1)
//
// Issue 9's reading of download labels (normalisation, confusables
// skeleton, CSS strings) measured against the code before it, alternating,
// 8 rounds at a load average of 2 to 7: BenchmarkCheck1MiB 7.3 ms/op
// (6.9 before), BenchmarkCheck1MiBMarkup 9.6 ms/op (11.4 before), neither
// a significant difference. A page of only distinct non-ASCII labels pays
// 1-2 µs per label (BenchmarkHostileInputs/distinct_*), 2-3 times the old
// byte comparison.
//
// Issue 16's Refs (the remote URLs a page loads) measured against the
// commit before them (1b69f5f), alternating, 5 rounds at a load average of
// 2 to 5: BenchmarkCheck1MiB 11.6 ms/op (11.1 before),
// BenchmarkCheck1MiBMarkup 24.2 ms/op (22.0 before), within the noise of
// those rounds (benchmarks of code that did not change moved by -7% to
// +39%). BenchmarkRefsCost, which checks a page with and without
// collecting Refs in turn, in one process, puts the cost with
// GOMAXPROCS=1 at 1-9% (median 3.6%) on BenchmarkCheck1MiB's page, 522
// Refs, and 2-6% (median 4.8%) on BenchmarkCheck1MiBMarkup's, 2,084 Refs:
// about 0.35 µs and 270 bytes per Ref, and next to nothing for a page
// without remote URLs. BenchmarkRewrite1MiB rewrites those 2,084 URLs in
// 1.5-2.2 ms.
//
// Issue 15's round (docs/performance.md, "The page checker's third
// round") measured every benchmark against the tokenizer alone on the
// same input (BenchmarkTokenize), the floor under Check's time.
//
// BenchmarkCheck1MiB is the realistic case: large pages are large because
// of data: URI images, whose base64 shorten keeps away from the
// tokenizer. BenchmarkCheck1MiBMarkup is the worst realistic case, 1 MiB
// of markup, CSS and JS; about two thirds of its time is
// golang.org/x/net/html's tokenizer, which reads byte by byte (tokenizing
// alone takes 6-8 ms/op on the same page and machine).
package htmlcheck

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"
)

// benchPage builds a realistic page of about size bytes: a landing page
// whose sections (inline CSS, inline JS, data: URI images, inline SVG,
// https images, prose) repeat until the size is reached.
func benchPage(size int) []byte { return benchPageImages(size, true) }

// benchPageImages is benchPage with data: URI images or, if not dataURIs,
// https ones.
func benchPageImages(size int, dataURIs bool) []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	img := make([]byte, 3000) // a small photo's worth of incompressible bytes
	for i := range img {
		img[i] = byte(rng.Uint32())
	}
	dataURI := "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(img)
	if !dataURIs {
		dataURI = "https://images.example.com/team.jpg"
	}
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Northwind Launch Kit</title>
<style>
:root { --accent: #5b5bd6; --ink: #1c1c28; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.6 system-ui, sans-serif; color: var(--ink); }
.hero { padding: 6rem 1.5rem; background: linear-gradient(135deg, #eef 0%, #fff 100%); }
.card { border-radius: 12px; box-shadow: 0 4px 24px rgba(0,0,0,.08); padding: 1.5rem; }
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(240px, 1fr)); gap: 1.5rem; }
@keyframes rise { from { transform: translateY(12px); opacity: 0 } to { transform: none; opacity: 1 } }
</style>
</head>
<body>
`)
	for i := 0; b.Len() < size-len(dataURI)-5000; i++ {
		fmt.Fprintf(&b, `<section class="feature" id="feature-%d" style="animation: rise .6s ease-out both">
  <div class="grid">
    <article class="card">
      <img src="%s" alt="Team photo %d" width="320" height="200" loading="lazy">
      <h3>Chapter %d: Shipping with confidence</h3>
      <p>Over 2 million downloads later, the playbook still fits on one page. Teams use it to plan
      launches, write release notes &amp; keep customers in the loop &mdash; without another tool.</p>
      <button class="toggle" aria-expanded="false" onclick="toggle(this)">Show details</button>
      <div class="details" hidden><p>Each chapter ends with a checklist and a worked example.</p></div>
    </article>
    <article class="card">
      <picture>
        <source srcset="https://images.example.com/ch%d.avif 1x, https://images.example.com/ch%d@2x.avif 2x" type="image/avif">
        <img src="https://images.example.com/ch%d.jpg" alt="Illustration">
      </picture>
      <svg viewBox="0 0 120 40" width="120" height="40" aria-hidden="true">
        <defs><linearGradient id="g%d"><stop offset="0" stop-color="#5b5bd6"/><stop offset="1" stop-color="#a0a0ff"/></linearGradient></defs>
        <rect width="120" height="40" rx="8" fill="url(#g%d)"/>
        <path d="M10 30 L30 10 L50 25 L70 12 L90 22 L110 8" stroke="#fff" fill="none" stroke-width="2"/>
      </svg>
      <ul><li>Timeline templates</li><li>Launch-day checklist</li><li>Post-mortem guide</li></ul>
    </article>
  </div>
  <style>#feature-%d .card:hover { transform: translateY(-2px); transition: transform .2s; }</style>
  <script>
  (function () {
    var el = document.getElementById('feature-%d');
    var end = Date.now() + %d * 3600 * 1000;
    function tick() {
      var s = Math.max(0, Math.floor((end - Date.now()) / 1000));
      el.dataset.left = Math.floor(s / 3600) + 'h ' + Math.floor(s %% 3600 / 60) + 'm';
      if (s > 0) requestAnimationFrame(tick);
    }
    tick();
  })();
  </script>
</section>
`, i, dataURI, i, i, i, i, i, i, i, i, i, i+1)
	}
	b.WriteString(`<footer><p>&copy; 2026 Northwind. Your download will start from the button at the bottom right.</p></footer>
<script>function toggle(b){var d=b.nextElementSibling;d.hidden=!d.hidden;b.setAttribute('aria-expanded',String(!d.hidden));}</script>
</body>
</html>
`)
	return []byte(b.String())
}

func BenchmarkCheck1MiB(b *testing.B) {
	doc := benchPage(MaxSize)
	if r := Check(doc, Options{}); !r.OK() {
		b.Fatalf("benchmark page has errors: %+v", r.Errors[0])
	}
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		Check(doc, Options{})
	}
}

// BenchmarkCheck1MiBMarkup checks a page of about 1 MiB like the one of
// BenchmarkCheck1MiB but with https images instead of data: URIs: only
// markup, inline CSS and JS, the slowest kind of realistic page, since all
// of it goes through the tokenizer.
func BenchmarkCheck1MiBMarkup(b *testing.B) {
	doc := benchPageImages(MaxSize, false)
	if r := Check(doc, Options{}); !r.OK() {
		b.Fatalf("benchmark page has errors: %+v", r.Errors[0])
	}
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		Check(doc, Options{})
	}
}

// BenchmarkRewrite1MiB rewrites the https images of the page of
// BenchmarkCheck1MiBMarkup, as the content origin does for a page with
// remote images, given its Refs.
func BenchmarkRewrite1MiB(b *testing.B) {
	doc := benchPageImages(MaxSize, false)
	refs := Check(doc, Options{}).Refs
	if len(refs) == 0 {
		b.Fatal("benchmark page has no Refs")
	}
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		Rewrite(doc, refs, func(Ref) string {
			return "https://content.example/a/0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.jpg"
		})
	}
}

// BenchmarkRefsCost measures what collecting Refs costs Check, on the
// pages of BenchmarkCheck1MiB and BenchmarkCheck1MiBMarkup: it checks
// each page with and without collecting them, alternately, so that a busy
// machine slows both alike, and reports the median times (ms-with/op,
// ms-without/op) and the median of the differences of pairs (%).
func BenchmarkRefsCost(b *testing.B) {
	for _, tt := range []struct {
		name string
		doc  []byte
	}{{"Check1MiB", benchPage(MaxSize)}, {"Check1MiBMarkup", benchPageImages(MaxSize, false)}} {
		b.Run(tt.name, func(b *testing.B) {
			timed := func(refs bool) float64 {
				t := time.Now()
				c := newChecker(tt.doc, Options{})
				c.noRefs = !refs
				c.run()
				finish(tt.doc, c.found)
				c.resolveRefs()
				return float64(time.Since(t))
			}
			var with, without, diff []float64
			for i := 0; b.Loop(); i++ {
				// Each first in turn: the second finds the page in
				// the cache.
				var w, wo float64
				if i%2 == 0 {
					w, wo = timed(true), timed(false)
				} else {
					wo, w = timed(false), timed(true)
				}
				with, without = append(with, w), append(without, wo)
				diff = append(diff, 100*(w/wo-1))
			}
			median := func(v []float64) float64 { slices.Sort(v); return v[len(v)/2] }
			b.ReportMetric(median(with)/1e6, "ms-with/op")
			b.ReportMetric(median(without)/1e6, "ms-without/op")
			b.ReportMetric(median(diff), "%")
		})
	}
}

// BenchmarkTokenize only tokenizes the inputs of BenchmarkCheck1MiB,
// BenchmarkCheck1MiBMarkup and BenchmarkHostileInputs as Check does
// (shorten first, then golang.org/x/net/html's tokenizer to the end,
// asking for each token's raw bytes): the floor under Check's time,
// which the checker cannot go below without another tokenizer.
func BenchmarkTokenize(b *testing.B) {
	inputs := []struct {
		name string
		doc  []byte
	}{{"Check1MiB", benchPage(MaxSize)}, {"Check1MiBMarkup", benchPageImages(MaxSize, false)}}
	for _, tt := range hostileInputs() {
		inputs = append(inputs, struct {
			name string
			doc  []byte
		}{"HostileInputs/" + tt.name, tt.doc})
	}
	for _, tt := range inputs {
		b.Run(tt.name, func(b *testing.B) {
			b.SetBytes(int64(len(tt.doc)))
			b.ReportAllocs()
			for b.Loop() {
				src, _ := shorten(tt.doc)
				z := html.NewTokenizer(bytes.NewReader(src))
				n := 0
				for z.Next() != html.ErrorToken {
					n += len(z.Raw())
				}
				if n != len(src) {
					b.Fatalf("tokenized %d of %d bytes", n, len(src))
				}
			}
		})
	}
}
