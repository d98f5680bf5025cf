package storetest

import (
	"bytes"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// statDay is a fixed UTC day (00:00) for statistics tests.
var statDay = time.Date(2026, time.November, 24, 0, 0, 0, 0, time.UTC)

// view is a batch of one view of file at at by visitor, from a referrer.
func view(file fileframe.FileID, at time.Time, variant fileframe.Variant, visitor uint64, ev fileframe.StatEvent) *fileframe.StatBatch {
	b := fileframe.NewStatBatch()
	var c fileframe.StatCounts
	c.Count(ev)
	b.Hours[fileframe.StatKey{File: file, Hour: fileframe.HourStart(at), Variant: variant}] = c
	b.Sources[fileframe.StatSourceKey{File: file, Day: fileframe.DayStart(at), Dim: fileframe.DimReferrer, Value: "news.example"}] = c
	b.Visitors[fileframe.StatVisitorKey{File: file, Day: fileframe.DayStart(at), Variant: variant, Visitor: visitor}] = ev
	return b
}

func stats(t *testing.T, s fileframe.Store, q fileframe.StatQuery) fileframe.StatReport {
	t.Helper()
	rep, err := s.Stats(t.Context(), q)
	if err != nil {
		t.Fatalf("Stats: %v", err)
	}
	return rep
}

func testStats(t *testing.T, newStore func(t *testing.T) fileframe.Store) {
	day := fileframe.PageVariant(1)

	t.Run("batches added at once are all counted, visitors once each", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		f := newFile(t, s, a.ID)
		var wg sync.WaitGroup
		errs := make(chan error, 8*25)
		for g := range 8 {
			wg.Go(func() {
				for i := range 25 {
					// 200 views by 20 visitors, each seen by several goroutines.
					errs <- s.AddStats(t.Context(), view(f.ID, statDay.Add(10*time.Hour), day, uint64((g*25+i)%20), fileframe.StatView))
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatalf("AddStats: %v", err)
			}
		}
		rep := stats(t, s, fileframe.StatQuery{Account: a.ID, File: f.ID, From: statDay, To: statDay.AddDate(0, 0, 1)})
		if rep.Totals.Views != 200 || rep.Totals.Visitors != 20 {
			t.Errorf("totals: %d views, %d visitors; want 200 and 20", rep.Totals.Views, rep.Totals.Visitors)
		}
		if len(rep.Series) != 1 || rep.Series[0].Views != 200 || !rep.Series[0].At.Equal(statDay) {
			t.Errorf("series: %+v", rep.Series)
		}
		if len(rep.Sources) != 1 || rep.Sources[0].Value != "news.example" || rep.Sources[0].Views != 200 {
			t.Errorf("sources: %+v", rep.Sources)
		}
	})

	t.Run("a rollup keeps the counts, deletes the hashes and the salt, across an hour and a day boundary", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		f := newFile(t, s, a.ID)
		late := statDay.Add(23*time.Hour + 59*time.Minute)
		next := statDay.AddDate(0, 0, 1).Add(time.Minute)
		salt, err := s.StatsSalt(t.Context(), fileframe.DayStart(late), func() []byte { return []byte("salt-one") })
		if err != nil || string(salt) != "salt-one" {
			t.Fatalf("StatsSalt: %q, %v", salt, err)
		}
		again, err := s.StatsSalt(t.Context(), fileframe.DayStart(late), func() []byte { return []byte("salt-two") })
		if err != nil || !bytes.Equal(again, salt) {
			t.Fatalf("StatsSalt again: %q, %v; want the first", again, err)
		}
		for _, b := range []*fileframe.StatBatch{
			view(f.ID, late, day, 1, fileframe.StatView),
			view(f.ID, late, day, 2, fileframe.StatView),
			view(f.ID, late, day, 2, fileframe.StatClick|fileframe.StatDownload),
			view(f.ID, late, day, 3, fileframe.StatDownload), // a download without a view converts nobody
			view(f.ID, next, day, 1, fileframe.StatView),
		} {
			if err := s.AddStats(t.Context(), b); err != nil {
				t.Fatalf("AddStats: %v", err)
			}
		}
		q := fileframe.StatQuery{Account: a.ID, File: f.ID, From: statDay, To: statDay.AddDate(0, 0, 2)}
		check := func(when string) {
			t.Helper()
			rep := stats(t, s, q)
			if len(rep.Series) != 2 {
				t.Fatalf("%s: series %+v", when, rep.Series)
			}
			d0, d1 := rep.Series[0], rep.Series[1]
			if d0.Views != 2 || d0.Visitors != 2 || d0.Converted != 1 || d1.Views != 1 || d1.Visitors != 1 || d1.Converted != 0 {
				t.Errorf("%s: days %+v and %+v; want 2 views, 2 visitors, 1 converted, then 1, 1, 0", when, d0, d1)
			}
			hq := q
			hq.Hourly, hq.From, hq.To = true, late.Add(-time.Hour), next.Add(time.Hour)
			h := stats(t, s, hq).Series
			var views []int64
			for _, r := range h {
				views = append(views, r.Views)
				if r.Visitors != -1 {
					t.Errorf("%s: an hourly row claims %d visitors", when, r.Visitors)
				}
			}
			if len(h) != 4 || views[1] != 2 || views[2] != 1 || views[0]+views[3] != 0 {
				t.Errorf("%s: hourly views %v; want [0 2 1 0]", when, views)
			}
		}
		check("before the rollup")
		n, err := s.RollupStats(t.Context(), next, 0, 0)
		if err != nil || n != 3 {
			t.Fatalf("RollupStats: %d hashes, %v; want 3", n, err)
		}
		check("after the rollup")
		if n, err := s.RollupStats(t.Context(), next, 0, 0); err != nil || n != 0 {
			t.Errorf("second RollupStats: %d, %v; want 0 (the hashes are gone)", n, err)
		}
		_, err = s.StatsSalt(t.Context(), fileframe.DayStart(late), func() []byte { return []byte("salt-three") })
		wantCode(t, "StatsSalt of a rolled-up day", err, fileframe.ENOTFOUND)
		if _, err := s.StatsSalt(t.Context(), fileframe.DayStart(next), func() []byte { return []byte("salt-four") }); err != nil {
			t.Errorf("StatsSalt of the next day: %v", err)
		}
		// Retention: hourly rows before the second day and every daily row
		// before it go; the second day stays.
		if _, err := s.RollupStats(t.Context(), next, fileframe.DayStart(next), fileframe.DayStart(next)); err != nil {
			t.Fatal(err)
		}
		rep := stats(t, s, q)
		if rep.Totals.Views != 1 || rep.Series[0].Views != 0 {
			t.Errorf("after retention: %+v", rep.Series)
		}
	})

	t.Run("the account overview lists its files only; a deleted file's counts are dropped", func(t *testing.T) {
		s := newStore(t)
		a, other := newAccount(t, s), newAccount(t, s)
		f1, f2, f3 := newFile(t, s, a.ID), newFile(t, s, a.ID), newFile(t, s, other.ID)
		b := view(f1.ID, statDay, day, 1, fileframe.StatView)
		b.Merge(view(f2.ID, statDay, day, 1, fileframe.StatView))
		b.Merge(view(f2.ID, statDay, day, 2, fileframe.StatView))
		b.Merge(view(f3.ID, statDay, day, 1, fileframe.StatView))
		b.Merge(view("f_gone0000000000000000", statDay, day, 1, fileframe.StatView))
		if err := s.AddStats(t.Context(), b); err != nil {
			t.Fatalf("AddStats with a missing file: %v", err)
		}
		rep := stats(t, s, fileframe.StatQuery{Account: a.ID, From: statDay, To: statDay.AddDate(0, 0, 1)})
		if len(rep.Files) != 2 || rep.Files[0].File != f2.ID || rep.Files[0].Views != 2 || rep.Files[1].File != f1.ID || rep.Totals.Views != 3 {
			t.Errorf("overview: %+v, totals %+v", rep.Files, rep.Totals)
		}
		if _, err := s.DeleteFile(t.Context(), f2.ID); err != nil {
			t.Fatal(err)
		}
		rep = stats(t, s, fileframe.StatQuery{Account: a.ID, From: statDay, To: statDay.AddDate(0, 0, 1)})
		if len(rep.Files) != 1 || rep.Totals.Views != 1 {
			t.Errorf("after deleting a file: %+v", rep.Files)
		}
	})

	t.Run("a running test's revisions are not pruned; an ended test's are", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		f := newFile(t, s, a.ID)
		save := func(i int) {
			t.Helper()
			if _, err := s.SavePage(t.Context(), fileframe.PageWrite{FileID: f.ID, HTML: []byte(fmt.Sprintf("<p>%d</p>", i)), At: statDay}); err != nil {
				t.Fatal(err)
			}
		}
		save(1)
		save(2)
		test := fileframe.PageTest{ID: fileframe.NewTestID(), FileID: f.ID, Revisions: []int{1, 2}, Secret: []byte("k"), StartedAt: statDay}
		if err := s.CreatePageTest(t.Context(), test); err != nil {
			t.Fatal(err)
		}
		for i := 3; i <= fileframe.RevisionsKept+5; i++ {
			save(i)
		}
		for _, n := range []int{1, 2} {
			if _, err := s.Revision(t.Context(), f.ID, n); err != nil {
				t.Errorf("revision %d of a running test: %v", n, err)
			}
		}
		if _, err := s.Revision(t.Context(), f.ID, 3); !fileframe.IsNotFound(err) {
			t.Errorf("revision 3, in no test: %v; want it pruned", err)
		}
		if _, err := s.EndPageTest(t.Context(), test.ID, 0, statDay); err != nil {
			t.Fatal(err)
		}
		save(fileframe.RevisionsKept + 6)
		if _, err := s.Revision(t.Context(), f.ID, 1); !fileframe.IsNotFound(err) {
			t.Errorf("revision 1 after its test ended: %v; want it pruned", err)
		}
	})

	t.Run("page tests: one running per file, ended once, newest first", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		f := newFile(t, s, a.ID)
		t1 := fileframe.PageTest{ID: fileframe.NewTestID(), FileID: f.ID, Revisions: []int{1, 2}, Secret: []byte("k1"), StartedAt: statDay}
		if err := s.CreatePageTest(t.Context(), t1); err != nil {
			t.Fatalf("CreatePageTest: %v", err)
		}
		t2 := fileframe.PageTest{ID: fileframe.NewTestID(), FileID: f.ID, Revisions: []int{2, 3}, Secret: []byte("k2"), StartedAt: statDay.Add(time.Hour)}
		wantCode(t, "a second running test", s.CreatePageTest(t.Context(), t2), fileframe.ECONFLICT)
		got, err := s.RunningPageTest(t.Context(), f.ID)
		if err != nil || got.ID != t1.ID || got.AccountID != a.ID || len(got.Revisions) != 2 || got.Revisions[1] != 2 || string(got.Secret) != "k1" || !got.Running() {
			t.Fatalf("RunningPageTest: %+v, %v", got, err)
		}
		ended, err := s.EndPageTest(t.Context(), t1.ID, 2, statDay.Add(30*time.Minute))
		if err != nil || ended.Running() || ended.Promoted != 2 {
			t.Fatalf("EndPageTest: %+v, %v", ended, err)
		}
		_, err = s.EndPageTest(t.Context(), t1.ID, 0, statDay.Add(time.Hour))
		wantCode(t, "ending an ended test", err, fileframe.ENOTFOUND)
		_, err = s.RunningPageTest(t.Context(), f.ID)
		wantCode(t, "RunningPageTest after the end", err, fileframe.ENOTFOUND)
		if err := s.CreatePageTest(t.Context(), t2); err != nil {
			t.Fatalf("CreatePageTest after the end: %v", err)
		}
		list, err := s.PageTests(t.Context(), f.ID)
		if err != nil || len(list) != 2 || list[0].ID != t2.ID || list[1].ID != t1.ID {
			t.Errorf("PageTests: %+v, %v", list, err)
		}
		// Counts of a test are apart from the rest.
		b := view(f.ID, statDay, fileframe.PageVariant(2), 7, fileframe.StatView)
		tb := fileframe.NewStatBatch()
		for k, c := range b.Hours {
			k.Test = t2.ID
			tb.Hours[k] = c
		}
		for k, e := range b.Visitors {
			k.Test = t2.ID
			tb.Visitors[k] = e
		}
		b.Merge(tb)
		if err := s.AddStats(t.Context(), b); err != nil {
			t.Fatal(err)
		}
		rep := stats(t, s, fileframe.StatQuery{Account: a.ID, File: f.ID, Test: t2.ID, From: statDay, To: statDay.AddDate(0, 0, 1)})
		if rep.Totals.Views != 1 || len(rep.Variants) != 1 || rep.Variants[0].Test != t2.ID || rep.Variants[0].Visitors != 1 {
			t.Errorf("a test's figures: %+v", rep)
		}
		if _, err := s.DeleteFile(t.Context(), f.ID); err != nil {
			t.Fatal(err)
		}
		if list, err := s.PageTests(t.Context(), f.ID); err != nil || len(list) != 0 {
			t.Errorf("tests of a deleted file: %+v, %v", list, err)
		}
	})
}
