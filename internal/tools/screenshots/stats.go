package main

import (
	"context"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// The demo's statistics (issue 14). No visitor of the demo made them: the
// history is synthetic, written with the store's AddStats one day at a
// time (as the servers' batches would), from a seeded generator so that
// every run draws the same figures. The offer's page has two revisions in
// an A/B test started six days before demoNow, with enough visitors for a
// verdict; the teaser's link shows its Bold template; the other files get
// a few days each, for the account's overview.

// demoTestID is the offer's A/B test, fixed as the demo's other IDs.
const demoTestID fileframe.TestID = "ab_Nw4sT7kQx2MpLc9R"

// demoTestDays is how long before demoNow the test started.
const demoTestDays = 6

// weighted is a value of a source dimension with its share of views.
type weighted struct {
	value string
	share float64
}

// demoSources are the shares of each source dimension.
var demoSources = map[string][]weighted{
	fileframe.DimReferrer:    {{"instagram.com", .34}, {fileframe.ReferrerNone, .24}, {"newsletter.northwind.studio", .2}, {"google.com", .13}, {"pinterest.com", .09}},
	fileframe.DimUTMSource:   {{"instagram", .3}, {"newsletter", .24}, {"pinterest", .08}},
	fileframe.DimUTMMedium:   {{"social", .38}, {"email", .24}},
	fileframe.DimUTMCampaign: {{"spring-2026", .44}, {"spring-preview", .18}},
	fileframe.DimDevice:      {{fileframe.DevicePhone, .57}, {fileframe.DeviceDesktop, .35}, {fileframe.DeviceTablet, .08}},
}

// demoHourShare is the share of a day's views in each hour (UTC): quiet at
// night, busiest in the afternoon and evening.
var demoHourShare = func() [24]float64 {
	w := [24]float64{1, 1, 1, 1, 1, 1, 2, 3, 5, 6, 7, 7, 8, 8, 8, 8, 8, 9, 9, 8, 7, 5, 3, 2}
	var sum float64
	for _, x := range w {
		sum += x
	}
	for i := range w {
		w[i] /= sum
	}
	return w
}()

// statsHistory is how one demo file's link was visited.
type statsHistory struct {
	file string // the demo's name of the file
	days int    // how many days back, today included
	// views returns the day's views, d days before demoNow's day.
	views func(d int, r *rand.Rand) int
	// variant is what visitors saw outside the test; rate the share of
	// visitors who downloaded.
	variant fileframe.Variant
	rate    float64
}

// shownVariant is a variant visitors saw on a day: its share of the
// day's views and of its visitors who downloaded.
type shownVariant struct {
	v    fileframe.Variant
	test fileframe.TestID
	rate float64
	part float64
}

// seedStats starts the offer's test and writes every file's history.
func (d *demo) seedStats(ctx context.Context, a fileframe.Account) error {
	st := d.in.store
	offer := d.files["offer"]
	started := time.Unix(fileframe.DayStart(demoNow), 0).UTC().AddDate(0, 0, -demoTestDays).Add(9*time.Hour + 12*time.Minute)
	if err := st.CreatePageTest(ctx, fileframe.PageTest{
		ID: demoTestID, FileID: offer.ID, AccountID: a.ID, Revisions: []int{1, 2},
		Secret: []byte("the demo's A/B test secret, 32 b"), StartedAt: started,
	}); err != nil {
		return err
	}
	r := rand.New(rand.NewPCG(14, 2026))
	wave := func(base, growth float64) func(int, *rand.Rand) int {
		return func(d int, r *rand.Rand) int {
			day := time.Unix(fileframe.DayStart(demoNow), 0).AddDate(0, 0, -d)
			v := base + growth*float64(30-d)
			if wd := day.Weekday(); wd == time.Saturday || wd == time.Sunday {
				v *= .7
			}
			return int(v * (.85 + .3*r.Float64()))
		}
	}
	for _, h := range []statsHistory{
		{"offer", 24, wave(60, 4), fileframe.PageVariant(2), .17},
		// The teaser's launch: a burst when it was shared, then a tail.
		{"teaser", 16, func(d int, r *rand.Rand) int {
			return int((40 + 900/float64(1+max(0, 15-d)*(15-d)/4)) * (.85 + .3*r.Float64()))
		}, fileframe.TemplateVariant("bold"), .31},
		{"shoot", 20, wave(8, .2), fileframe.TemplateVariant("photo"), .45},
		{"invoice", 9, wave(3, 0), fileframe.TemplateVariant("minimal"), .6},
		{"presskit", 3, wave(30, 0), fileframe.TemplateVariant("card"), .22},
		{"lookbook", 1, wave(25, 0), fileframe.PageVariant(2), .3},
	} {
		f := d.files[h.file]
		for back := h.days - 1; back >= 0; back-- {
			b := fileframe.NewStatBatch()
			day := time.Unix(fileframe.DayStart(demoNow), 0).UTC().AddDate(0, 0, -back)
			views := h.views(back, r)
			if back == 0 {
				views = views * 10 / 24 // demoNow is 10:24
			}
			// During the test, half the visitors see each revision;
			// revision 2 converts better.
			shown := []shownVariant{{h.variant, "", h.rate, 1}}
			if h.file == "offer" && !day.Before(time.Unix(fileframe.DayStart(started), 0)) {
				shown = []shownVariant{{fileframe.PageVariant(1), demoTestID, .12, .5}, {fileframe.PageVariant(2), demoTestID, .19, .5}}
			}
			var visitor uint64
			for _, s := range shown {
				n := int(float64(views) * s.part)
				visitors := n * 3 / 4
				converted := int(float64(visitors) * s.rate * (.9 + .2*r.Float64()))
				downloads := converted + converted/8
				clicks := downloads + downloads/6
				last := 24
				if back == 0 {
					last = demoNow.Hour() + 1
				}
				// Spread the day's counts over its hours.
				var given [3]int
				for hr := range last {
					share := demoHourShare[hr] * 24 / float64(last)
					c := fileframe.StatCounts{Views: int64(float64(n) * share), Clicks: int64(float64(clicks) * share), Downloads: int64(float64(downloads) * share)}
					if hr == last-1 {
						c = fileframe.StatCounts{Views: int64(n - given[0]), Clicks: int64(clicks - given[1]), Downloads: int64(downloads - given[2])}
					}
					given[0], given[1], given[2] = given[0]+int(c.Views), given[1]+int(c.Clicks), given[2]+int(c.Downloads)
					b.Hours[fileframe.StatKey{File: f.ID, Hour: day.Unix() + int64(hr)*3600, Variant: s.v, Test: s.test}] = c
				}
				for i := range visitors {
					visitor++
					ev := fileframe.StatView
					if i < converted {
						ev |= fileframe.StatClick | fileframe.StatDownload
					}
					b.Visitors[fileframe.StatVisitorKey{File: f.ID, Day: day.Unix(), Variant: s.v, Test: s.test, Visitor: visitor}] = ev
				}
				for dim, values := range demoSources {
					for _, w := range values {
						k := fileframe.StatSourceKey{File: f.ID, Day: day.Unix(), Dim: dim, Value: w.value}
						c := b.Sources[k]
						c.Add(fileframe.StatCounts{Views: int64(float64(n) * w.share), Downloads: int64(float64(downloads) * w.share)})
						b.Sources[k] = c
					}
				}
			}
			if err := st.AddStats(ctx, b); err != nil {
				return err
			}
		}
	}
	return nil
}

// offerPages are the two revisions of the offer's page: the lookbook's
// layout with the offer's words, the second with a headline that names
// the discount.
func offerPages(lookbook string) (string, string) {
	a := strings.NewReplacer("Spring 2026 lookbook", "Spring offer 2026", "<em>lookbook</em>", "<em>offer</em>").Replace(lookbook)
	b := strings.NewReplacer("Spring 2026 lookbook", "Spring offer 2026", "Spring 2026 <em>lookbook</em>", "Spring offer: <em>20% off</em> until 20 March").Replace(lookbook)
	return a, b
}
