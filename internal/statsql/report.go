// Package statsql builds the statistics report (fileframe.StatsStore.Stats)
// from the statistics tables, whose schema and SQL are the same on SQLite
// and PostgreSQL (migrations 013-stats.sql and 016-stats.sql): each store
// passes a Query that runs one statement in its read transaction.
package statsql

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// Query runs query with args and calls row once per result row, with the
// function that scans it.
type Query func(ctx context.Context, query string, args []any, row func(scan func(dest ...any) error) error) error

// Dollar rewrites the ? placeholders of query as $1, $2, … (PostgreSQL).
func Dollar(query string) string {
	var b strings.Builder
	n := 0
	for _, r := range query {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// TopSources is how many values of each source dimension a report lists.
const TopSources = 10

// MaxSeries is the most buckets a series may have.
const MaxSeries = 24 * 93

// Report builds the report of q; rebind, when not nil, rewrites each
// statement's placeholders for the store.
func Report(ctx context.Context, run Query, q fileframe.StatQuery, rebind func(string) string) (fileframe.StatReport, error) {
	if rebind == nil {
		rebind = func(s string) string { return s }
	}
	where, args := "file_id = ?", []any{string(q.File)}
	if q.File == "" {
		where, args = "file_id IN (SELECT id FROM files WHERE account_id = ?)", []any{string(q.Account)}
	}
	if q.Test != "" {
		where += " AND test_id = ?"
		args = append(args, string(q.Test))
	}
	fromDay, to := fileframe.DayStart(q.From), q.To.Unix()
	dayArgs := append(slices.Clone(args), fromDay, to)

	type key struct {
		day     int64
		variant fileframe.Variant
		test    fileframe.TestID
		file    fileframe.FileID
	}
	cells := map[key]*fileframe.StatRow{}
	cell := func(k key) *fileframe.StatRow {
		c := cells[k]
		if c == nil {
			c = &fileframe.StatRow{}
			cells[k] = c
		}
		return c
	}
	var k key
	var v fileframe.StatRow
	err := run(ctx, rebind(`
		SELECT day, variant, test_id, file_id, CAST(sum(views) AS BIGINT), CAST(sum(clicks) AS BIGINT),
		       CAST(sum(downloads) AS BIGINT), CAST(sum(visitors) AS BIGINT), CAST(sum(converted) AS BIGINT)
		FROM stat_days WHERE `+where+` AND day >= ? AND day < ?
		GROUP BY day, variant, test_id, file_id`), dayArgs, func(scan func(...any) error) error {
		if err := scan(&k.day, &k.variant, &k.test, &k.file, &v.Views, &v.Clicks, &v.Downloads, &v.Visitors, &v.Converted); err != nil {
			return err
		}
		c := cell(k)
		c.StatCounts.Add(v.StatCounts)
		c.Visitors += v.Visitors
		c.Converted += v.Converted
		return nil
	})
	if err != nil {
		return fileframe.StatReport{}, err
	}
	// The days not rolled up yet: their visitors are still hashes.
	err = run(ctx, rebind(`
		SELECT day, variant, test_id, file_id,
		       count(*) FILTER (WHERE events & 1 <> 0), count(*) FILTER (WHERE events & 5 = 5)
		FROM stat_visitors WHERE `+where+` AND day >= ? AND day < ?
		GROUP BY day, variant, test_id, file_id`), dayArgs, func(scan func(...any) error) error {
		if err := scan(&k.day, &k.variant, &k.test, &k.file, &v.Visitors, &v.Converted); err != nil {
			return err
		}
		c := cell(k)
		c.Visitors += v.Visitors
		c.Converted += v.Converted
		return nil
	})
	if err != nil {
		return fileframe.StatReport{}, err
	}

	var rep fileframe.StatReport
	days := map[int64]*fileframe.StatRow{}
	variants := map[key]*fileframe.StatRow{}
	files := map[fileframe.FileID]*fileframe.StatRow{}
	for k, c := range cells {
		add(&rep.Totals, c)
		add(get(days, k.day), c)
		vk := key{variant: k.variant, test: k.test}
		vr := get(variants, vk)
		vr.Variant, vr.Test = k.variant, k.test
		add(vr, c)
		fr := get(files, k.file)
		fr.File = k.file
		add(fr, c)
	}
	for _, r := range variants {
		rep.Variants = append(rep.Variants, *r)
	}
	slices.SortFunc(rep.Variants, func(a, b fileframe.StatRow) int {
		return cmp.Or(cmp.Compare(b.Views, a.Views), cmp.Compare(a.Variant, b.Variant), cmp.Compare(a.Test, b.Test))
	})
	if q.File == "" {
		for _, r := range files {
			rep.Files = append(rep.Files, *r)
		}
		slices.SortFunc(rep.Files, func(a, b fileframe.StatRow) int {
			return cmp.Or(cmp.Compare(b.Views, a.Views), cmp.Compare(b.Downloads, a.Downloads), cmp.Compare(a.File, b.File))
		})
	}

	step, first := int64(86400), fromDay
	if q.Hourly {
		step, first = 3600, fileframe.HourStart(q.From)
		hours := map[int64]*fileframe.StatRow{}
		var at int64
		err = run(ctx, rebind(`
			SELECT hour, CAST(sum(views) AS BIGINT), CAST(sum(clicks) AS BIGINT), CAST(sum(downloads) AS BIGINT)
			FROM stat_hours WHERE `+where+` AND hour >= ? AND hour < ? GROUP BY hour`),
			append(slices.Clone(args), first, to), func(scan func(...any) error) error {
				if err := scan(&at, &v.Views, &v.Clicks, &v.Downloads); err != nil {
					return err
				}
				get(hours, at).StatCounts = v.StatCounts
				return nil
			})
		if err != nil {
			return fileframe.StatReport{}, err
		}
		for _, r := range hours {
			r.Visitors, r.Converted = -1, -1
		}
		days = hours
	}
	for at := first; at < to && len(rep.Series) < MaxSeries; at += step {
		r := fileframe.StatRow{At: time.Unix(at, 0).UTC()}
		if d := days[at]; d != nil {
			r.StatCounts, r.Visitors, r.Converted = d.StatCounts, d.Visitors, d.Converted
		} else if q.Hourly {
			r.Visitors, r.Converted = -1, -1
		}
		rep.Series = append(rep.Series, r)
	}

	if q.Test == "" {
		var dim, value string
		bydim := map[string][]fileframe.StatRow{}
		err = run(ctx, rebind(`
			SELECT dim, value, CAST(sum(views) AS BIGINT), CAST(sum(clicks) AS BIGINT), CAST(sum(downloads) AS BIGINT)
			FROM stat_sources WHERE `+where+` AND day >= ? AND day < ? GROUP BY dim, value`),
			dayArgs, func(scan func(...any) error) error {
				if err := scan(&dim, &value, &v.Views, &v.Clicks, &v.Downloads); err != nil {
					return err
				}
				// Sources have no visitors of their own: only counts.
				bydim[dim] = append(bydim[dim], fileframe.StatRow{Dim: dim, Value: value, StatCounts: v.StatCounts, Visitors: -1, Converted: -1})
				return nil
			})
		if err != nil {
			return fileframe.StatReport{}, err
		}
		for _, d := range fileframe.StatDims {
			rows := bydim[d]
			slices.SortFunc(rows, func(a, b fileframe.StatRow) int {
				return cmp.Or(cmp.Compare(b.Views, a.Views), cmp.Compare(b.Downloads, a.Downloads), cmp.Compare(a.Value, b.Value))
			})
			rep.Sources = append(rep.Sources, rows[:min(len(rows), TopSources)]...)
		}
	}
	return rep, nil
}

func get[K comparable](m map[K]*fileframe.StatRow, k K) *fileframe.StatRow {
	r := m[k]
	if r == nil {
		r = &fileframe.StatRow{}
		m[k] = r
	}
	return r
}

func add(dst, src *fileframe.StatRow) {
	dst.StatCounts.Add(src.StatCounts)
	dst.Visitors += src.Visitors
	dst.Converted += src.Converted
}
