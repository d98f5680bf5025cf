package web

import (
	"math"
	"strconv"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// The stats pages' chart (app_stats.go): views, visitors and downloads
// over a report's series, drawn on the server as inline SVG, so that it
// needs no script and passes the app's CSP (colours come from classes in
// app_stats.css, geometry from attributes: neither is an inline style).
// statsChartOf computes every coordinate; the template only writes them.

// chartLayout is a chart's geometry, in the SVG's user units (viewBox):
// its size, the margins around the plot and how many x labels fit. CSS
// scales the drawing to the card's width, so each layout is made for a
// width at which its text reads at about 12 to 14 pixels: the page draws
// the chart twice, wide for desktops and narrow for phones, and CSS shows
// one (app_stats.css).
type chartLayout struct {
	Name                     string // "wide" or "narrow": the SVG's class and its IDs
	W, H                     int
	left, right, top, bottom int
	xLabels                  int
}

var (
	chartWide   = chartLayout{Name: "wide", W: 640, H: 280, left: 56, right: 16, top: 16, bottom: 56, xLabels: 5}
	chartNarrow = chartLayout{Name: "narrow", W: 360, H: 300, left: 44, right: 12, top: 12, bottom: 56, xLabels: 4}
)

const (
	chartMarkersUpTo         = 48 // points per line drawn with a marker
	chartYTicksWanted        = 4
	chartHourlyLabelSpacingH = 6
)

func (l chartLayout) plotW() float64 { return float64(l.W - l.left - l.right) }
func (l chartLayout) plotH() float64 { return float64(l.H - l.top - l.bottom) }

// x is the x of point i of n, spread over the plot's width.
func (l chartLayout) x(i, n int) float64 {
	if n <= 1 {
		return float64(l.left) + l.plotW()/2
	}
	return float64(l.left) + float64(i)*l.plotW()/float64(n-1)
}

// y is the y of value v on a scale from 0 to ceil.
func (l chartLayout) y(v, ceil int64) float64 {
	return float64(l.top) + l.plotH() - float64(v)*l.plotH()/float64(ceil)
}

// statsChart is the data of the "stats_chart" template.
type statsChart struct {
	Layout string // chartLayout.Name
	W, H   int
	// Left, Right, Top and Bottom are the plot's edges; MidX and MidY its
	// middle; TickEnd the lower end of the x axis's ticks.
	Left, Right, Top, Bottom int
	MidX, MidY, TickEnd      int
	// Empty: nothing was counted in the range; the chart says so instead
	// of drawing lines along zero.
	Empty  bool
	YTicks []chartTick
	XTicks []chartTick
	Lines  []chartLine
	// Summary is the chart's text alternative.
	Summary string
}

// chartTick is a labelled grid line: Pos is its y (YTicks) or x (XTicks).
type chartTick struct {
	Pos   float64
	Label string
	// Sub is a second line under an x label (the day of an hourly tick).
	Sub string
}

// chartLine is one series: its points as an SVG polyline, and markers
// while there are few enough points to tell apart.
type chartLine struct {
	Name   string
	Class  string
	Points string
	Dots   []chartPoint
}

type chartPoint struct{ X, Y float64 }

// statsChartOf draws a report's series. hourly series have no visitors
// (they are counted per day), so their chart has views and downloads only.
func statsChartOf(series []fileframe.StatRow, hourly bool, l chartLayout) statsChart {
	c := statsChart{Layout: l.Name, W: l.W, H: l.H, Left: l.left, Right: l.W - l.right, Top: l.top, Bottom: l.H - l.bottom,
		MidX: l.left + int(l.plotW())/2, MidY: l.top + int(l.plotH())/2, TickEnd: l.H - l.bottom + 5}
	type serie struct {
		name, class string
		value       func(fileframe.StatRow) int64
	}
	all := []serie{
		{"Views", "chart-views", func(r fileframe.StatRow) int64 { return r.Views }},
		{"Visitors", "chart-visitors", func(r fileframe.StatRow) int64 { return max(r.Visitors, 0) }},
		{"Downloads", "chart-downloads", func(r fileframe.StatRow) int64 { return r.Downloads }},
	}
	if hourly {
		all = []serie{all[0], all[2]}
	}
	var top int64
	for _, r := range series {
		for _, s := range all {
			top = max(top, s.value(r))
		}
	}
	c.XTicks = chartXTicks(series, hourly, l)
	c.Empty = top == 0
	if c.Empty {
		c.Summary = "No visits in this range."
		return c
	}
	step := niceStep(top)
	ceil := step * ((top + step - 1) / step)
	for v := int64(0); v <= ceil; v += step {
		c.YTicks = append(c.YTicks, chartTick{Pos: l.y(v, ceil), Label: compactCount(v)})
	}
	for _, s := range all {
		line := chartLine{Name: s.name, Class: s.class}
		pts := make([]byte, 0, len(series)*12)
		for i, r := range series {
			p := chartPoint{X: l.x(i, len(series)), Y: l.y(s.value(r), ceil)}
			if i > 0 {
				pts = append(pts, ' ')
			}
			pts = strconv.AppendFloat(pts, p.X, 'f', 1, 64)
			pts = append(pts, ',')
			pts = strconv.AppendFloat(pts, p.Y, 'f', 1, 64)
			if len(series) <= chartMarkersUpTo {
				line.Dots = append(line.Dots, p)
			}
		}
		line.Points = string(pts)
		c.Lines = append(c.Lines, line)
	}
	var views, downloads int64
	peak := series[0]
	for _, r := range series {
		views += r.Views
		downloads += r.Downloads
		if r.Views > peak.Views {
			peak = r
		}
	}
	unit := "day"
	when := peak.At.Format("2 Jan")
	if hourly {
		unit, when = "hour", peak.At.Format("2 Jan 15:04")+" UTC"
	}
	c.Summary = formatCount(views) + " views and " + formatCount(downloads) + " downloads over " + strconv.Itoa(len(series)) +
		" " + unit + "s; the busiest " + unit + " was " + when + " with " + formatCount(peak.Views) + " views."
	return c
}

// chartXTicks labels at most l.xLabels buckets, evenly apart, the
// first and the last included; hourly labels fall on whole multiples of
// chartHourlyLabelSpacingH hours where the range allows.
func chartXTicks(series []fileframe.StatRow, hourly bool, l chartLayout) []chartTick {
	n := len(series)
	if n == 0 {
		return nil
	}
	every := max(1, int(math.Ceil(float64(n-1)/float64(l.xLabels-1))))
	if hourly {
		every = chartHourlyLabelSpacingH * max(1, int(math.Ceil(float64(every)/chartHourlyLabelSpacingH)))
	}
	var ticks []chartTick
	for i := 0; i < n; i += every {
		ticks = append(ticks, chartTickAt(series, i, hourly, l))
	}
	if last := n - 1; (last)%every != 0 && float64(last%every) > float64(every)/2 {
		ticks = append(ticks, chartTickAt(series, last, hourly, l))
	}
	return ticks
}

func chartTickAt(series []fileframe.StatRow, i int, hourly bool, l chartLayout) chartTick {
	at := series[i].At.UTC()
	t := chartTick{Pos: l.x(i, len(series)), Label: at.Format("2 Jan")}
	if hourly {
		t.Label, t.Sub = at.Format("15:04"), at.Format("2 Jan")
	}
	return t
}

// niceStep is a step of 1, 2 or 5 times a power of ten that divides 0..top
// into about chartYTicksWanted intervals.
func niceStep(top int64) int64 {
	raw := float64(top) / chartYTicksWanted
	if raw <= 1 {
		return 1
	}
	pow := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*pow >= raw {
			return int64(m * pow)
		}
	}
	return int64(10 * pow)
}

// compactCount is an axis label: 950, 1.2k, 35k, 1.5M.
func compactCount(n int64) string {
	switch {
	case n >= 1_000_000:
		return trimZero(strconv.FormatFloat(float64(n)/1e6, 'f', 1, 64)) + "M"
	case n >= 10_000:
		return strconv.FormatInt(n/1000, 10) + "k"
	case n >= 1000:
		return trimZero(strconv.FormatFloat(float64(n)/1e3, 'f', 1, 64)) + "k"
	}
	return strconv.FormatInt(n, 10)
}

func trimZero(s string) string {
	if len(s) > 2 && s[len(s)-2:] == ".0" {
		return s[:len(s)-2]
	}
	return s
}

// formatCount writes n with thousands separators: 12,345.
func formatCount(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	out := make([]byte, 0, len(s)+len(s)/3+1)
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	if neg {
		return "-" + string(out)
	}
	return string(out)
}

// statsDay is how the stats pages name a day.
func statsDay(t time.Time) string { return t.UTC().Format("2 Jan 2006") }
