package storetest

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// newWebhook creates an endpoint of the account for the event types.
func newWebhook(t *testing.T, s fileframe.Store, a fileframe.AccountID, file fileframe.FileID, types ...fileframe.EventType) fileframe.Webhook {
	t.Helper()
	w, err := s.CreateWebhook(t.Context(), fileframe.Webhook{
		AccountID: a, URL: "https://hooks.example.com/" + fileframe.RandomBase62(6), Secret: "whsec_c2VjcmV0c2VjcmV0c2VjcmV0",
		Events: types, FileID: file,
	})
	if err != nil {
		t.Fatalf("CreateWebhook: %v", err)
	}
	return w
}

// claimAll claims every delivery due at now (far ahead by default).
func claimAll(t *testing.T, s fileframe.Store, now time.Time) []fileframe.DeliveryAttempt {
	t.Helper()
	got, err := s.ClaimDeliveries(t.Context(), now, time.Minute, 1000)
	if err != nil {
		t.Fatalf("ClaimDeliveries: %v", err)
	}
	return got
}

// eventsOf returns "type/fileId/extra" for each claimed attempt, sorted.
func eventsOf(as []fileframe.DeliveryAttempt) []string {
	var out []string
	for _, a := range as {
		e := a.Event
		extra := ""
		switch e.Type {
		case fileframe.EventPagePublished, fileframe.EventPageUnpublished:
			extra = fmt.Sprint(e.Data.Revision)
		case fileframe.EventFileDownloaded:
			extra = fmt.Sprintf("%d/%d", e.Data.Count, e.Data.Downloads)
		case fileframe.EventLinkExpired:
			extra = string(e.Data.Reason)
		}
		out = append(out, fmt.Sprintf("%s/%s/%s", e.Type, e.FileID, extra))
	}
	slices.Sort(out)
	return out
}

func testWebhooks(t *testing.T, newStore func(t *testing.T) fileframe.Store) {
	later := time.Now().Add(time.Hour)

	t.Run("endpoints round-trip, are the account's and are refused when malformed", func(t *testing.T) {
		s := newStore(t)
		ctx := t.Context()
		a, b := newAccount(t, s), newAccount(t, s)
		f := newFile(t, s, a.ID)
		w1 := newWebhook(t, s, a.ID, "", fileframe.EventFileCreated, fileframe.EventLinkExpired)
		w2 := newWebhook(t, s, a.ID, f.ID, fileframe.EventPagePublished)
		newWebhook(t, s, b.ID, "", fileframe.EventFileCreated)
		got, err := s.WebhookByID(ctx, w1.ID)
		if err != nil {
			t.Fatalf("WebhookByID: %v", err)
		}
		if got.URL != w1.URL || got.Secret != w1.Secret || !slices.Equal(got.Events, w1.Events) || got.AccountID != a.ID || !got.DisabledAt.IsZero() {
			t.Errorf("WebhookByID: got %+v, want %+v", got, w1)
		}
		wantRecent(t, "CreatedAt", got.CreatedAt, time.Now().Add(-time.Minute))
		list, err := s.WebhooksByAccount(ctx, a.ID)
		if err != nil || len(list) != 2 || list[0].ID != w2.ID || list[1].ID != w1.ID || list[0].FileID != f.ID {
			t.Errorf("WebhooksByAccount: got %+v, %v; want w2 then w1", list, err)
		}
		if err := s.SetWebhookDisabled(ctx, w1.ID, stamp); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.WebhookByID(ctx, w1.ID); !got.DisabledAt.Equal(ms(stamp)) {
			t.Errorf("DisabledAt: got %v, want %v", got.DisabledAt, ms(stamp))
		}
		_, err = s.CreateWebhook(ctx, fileframe.Webhook{AccountID: a.ID, URL: "https://x.example", Secret: "whsec_x"})
		wantCode(t, "CreateWebhook without events", err, fileframe.EINVALID)
		_, err = s.CreateWebhook(ctx, fileframe.Webhook{AccountID: a.ID, URL: "https://x.example", Secret: "whsec_x", Events: []fileframe.EventType{"file.eaten"}})
		wantCode(t, "CreateWebhook with an unknown event", err, fileframe.EINVALID)
		_, err = s.CreateWebhook(ctx, fileframe.Webhook{AccountID: "a_missing", URL: "https://x.example", Secret: "whsec_x", Events: fileframe.EventTypes})
		wantCode(t, "CreateWebhook of a missing account", err, fileframe.ENOTFOUND)
		_, err = s.WebhookByID(ctx, "wh_missing")
		wantCode(t, "WebhookByID of a missing endpoint", err, fileframe.ENOTFOUND)
		_, err = s.Deliveries(ctx, "wh_missing", 10)
		wantCode(t, "Deliveries of a missing endpoint", err, fileframe.ENOTFOUND)
		if err := s.DeleteWebhook(ctx, w1.ID); err != nil {
			t.Fatal(err)
		}
		wantCode(t, "DeleteWebhook twice", s.DeleteWebhook(ctx, w1.ID), fileframe.ENOTFOUND)
		wantCode(t, "SetWebhookDisabled of a deleted endpoint", s.SetWebhookDisabled(ctx, w1.ID, time.Time{}), fileframe.ENOTFOUND)
	})

	t.Run("each change writes its event in its transaction, for the endpoints that want it", func(t *testing.T) {
		s := newStore(t)
		ctx := t.Context()
		a := newAccount(t, s)
		all := newWebhook(t, s, a.ID, "", fileframe.EventTypes...)
		created := newWebhook(t, s, a.ID, "", fileframe.EventFileCreated)
		f := newFile(t, s, a.ID)
		one := newWebhook(t, s, a.ID, f.ID, fileframe.EventPagePublished, fileframe.EventPageUnpublished)
		g := newFile(t, s, a.ID)
		// Pages: publish, the same HTML again (no change), draft, publish
		// an old revision, unpublish.
		savePage(t, s, f.ID, pageHTML(1, 100), true)
		savePage(t, s, f.ID, pageHTML(1, 100), true)
		savePage(t, s, f.ID, pageHTML(2, 100), false)
		if _, err := s.SetLiveRevision(ctx, f.ID, 1, time.Now()); err != nil {
			t.Fatal(err)
		}
		if _, err := s.SetLiveRevision(ctx, f.ID, 0, time.Now()); err != nil {
			t.Fatal(err)
		}
		savePage(t, s, g.ID, pageHTML(3, 100), true)
		// Downloads, batched; a one-time link used up.
		if err := s.AddDownloads(ctx, map[fileframe.FileID]int64{f.ID: 3, g.ID: 1, "f_missing": 2}); err != nil {
			t.Fatal(err)
		}
		mustSetLink(t, s, g.ID, fileframe.Link{MaxDownloads: 1})
		claimAndFinish(t, s, g.ID, time.Now(), true)
		// A link that expired by time, noticed once.
		mustSetLink(t, s, f.ID, fileframe.Link{ExpiresAt: time.Now().Add(time.Minute)})
		if n, err := s.NotifyEndedLinks(ctx, time.Now(), 100); err != nil || n != 0 {
			t.Errorf("NotifyEndedLinks before the end: %d, %v; want 0", n, err)
		}
		for i, want := range []int{1, 0} {
			if n, err := s.NotifyEndedLinks(ctx, time.Now().Add(2*time.Minute), 100); err != nil || n != want {
				t.Errorf("NotifyEndedLinks after the end, call %d: %d, %v; want %d", i+1, n, err, want)
			}
		}

		byHook := map[fileframe.WebhookID][]fileframe.DeliveryAttempt{}
		for _, at := range claimAll(t, s, later) {
			byHook[at.Webhook.ID] = append(byHook[at.Webhook.ID], at)
		}
		for _, tc := range []struct {
			w    fileframe.Webhook
			want []string
		}{
			{all, []string{
				"file.created/" + string(f.ID) + "/", "file.created/" + string(g.ID) + "/",
				"file.downloaded/" + string(f.ID) + "/3/3", "file.downloaded/" + string(g.ID) + "/1/1",
				"link.expired/" + string(f.ID) + "/expired", "link.expired/" + string(g.ID) + "/used_up",
				"page.published/" + string(f.ID) + "/1", "page.published/" + string(f.ID) + "/1", "page.published/" + string(g.ID) + "/1",
				"page.unpublished/" + string(f.ID) + "/1", "page.unpublished/" + string(f.ID) + "/1",
			}},
			{created, []string{"file.created/" + string(f.ID) + "/", "file.created/" + string(g.ID) + "/"}},
			{one, []string{"page.published/" + string(f.ID) + "/1", "page.published/" + string(f.ID) + "/1",
				"page.unpublished/" + string(f.ID) + "/1", "page.unpublished/" + string(f.ID) + "/1"}},
		} {
			slices.Sort(tc.want)
			if got := eventsOf(byHook[tc.w.ID]); !slices.Equal(got, tc.want) {
				t.Errorf("events of %v:\n got %q\nwant %q", tc.w.Events, got, tc.want)
			}
		}
		// One event reaches several endpoints under one ID; the payload
		// describes the file.
		var ids []fileframe.EventID
		for _, at := range append(byHook[all.ID], byHook[created.ID]...) {
			if at.Event.Type == fileframe.EventFileCreated && at.Event.FileID == f.ID {
				ids = append(ids, at.Event.ID)
				d := at.Event.Data
				if d.Slug != f.Slug || d.Name != f.Name || d.Size != f.Size || d.URL != "/f/"+f.Slug || d.Kind != "file" || !d.Shared || at.Event.AccountID != a.ID {
					t.Errorf("file.created data: got %+v, want file %+v", d, f)
				}
				if !at.Event.CreatedAt.Equal(f.CreatedAt) {
					t.Errorf("file.created time: got %v, want the file's %v", at.Event.CreatedAt, f.CreatedAt)
				}
			}
		}
		if len(ids) != 2 || ids[0] != ids[1] {
			t.Errorf("file.created of one file to two endpoints: event IDs %v, want one ID twice", ids)
		}
	})

	t.Run("nothing is written for endpoints that are paused, of other accounts or of accounts off Agency", func(t *testing.T) {
		s := newStore(t)
		ctx := t.Context()
		a, b, c := newAccount(t, s), newAccount(t, s), newAccount(t, s)
		paused := newWebhook(t, s, a.ID, "", fileframe.EventFileCreated)
		if err := s.SetWebhookDisabled(ctx, paused.ID, time.Now()); err != nil {
			t.Fatal(err)
		}
		newWebhook(t, s, b.ID, "", fileframe.EventFileCreated)
		newWebhook(t, s, c.ID, "", fileframe.EventFileCreated)
		if err := s.SetAccountPlan(ctx, c.ID, fileframe.PlanPro); err != nil {
			t.Fatal(err)
		}
		newFile(t, s, a.ID)
		newFile(t, s, c.ID)
		if got := claimAll(t, s, later); len(got) != 0 {
			t.Errorf("deliveries: got %q, want none", eventsOf(got))
		}
		// A paused endpoint's pending deliveries wait until it resumes.
		if err := s.SetWebhookDisabled(ctx, paused.ID, time.Time{}); err != nil {
			t.Fatal(err)
		}
		f := newFile(t, s, a.ID)
		if err := s.SetWebhookDisabled(ctx, paused.ID, time.Now()); err != nil {
			t.Fatal(err)
		}
		if got := claimAll(t, s, later); len(got) != 0 {
			t.Errorf("deliveries of a paused endpoint: got %q, want none", eventsOf(got))
		}
		if err := s.SetWebhookDisabled(ctx, paused.ID, time.Time{}); err != nil {
			t.Fatal(err)
		}
		if got := eventsOf(claimAll(t, s, later)); !slices.Equal(got, []string{"file.created/" + string(f.ID) + "/"}) {
			t.Errorf("deliveries after resuming: got %q", got)
		}
	})

	t.Run("concurrent claims hand each delivery to one claimer; results need the claim", func(t *testing.T) {
		s := newStore(t)
		ctx := t.Context()
		a := newAccount(t, s)
		w := newWebhook(t, s, a.ID, "", fileframe.EventFileCreated)
		const files = 40
		for range files {
			newFile(t, s, a.ID)
		}
		now := time.Now().Add(time.Second)
		var mu sync.Mutex
		seen := map[fileframe.DeliveryID]int{}
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				for {
					got, err := s.ClaimDeliveries(ctx, now, time.Minute, 3)
					if err != nil {
						t.Errorf("ClaimDeliveries: %v", err)
						return
					}
					if len(got) == 0 {
						return
					}
					mu.Lock()
					for _, at := range got {
						seen[at.Delivery.ID]++
						if at.Delivery.Attempts != 1 || at.Webhook.ID != w.ID || at.Webhook.Secret != w.Secret {
							t.Errorf("claimed %+v", at)
						}
					}
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		if len(seen) != files {
			t.Errorf("claimed %d deliveries, want %d", len(seen), files)
		}
		for id, n := range seen {
			if n != 1 {
				t.Errorf("delivery %s claimed %d times", id, n)
			}
		}
		// Leased: no one claims them until the lease ends; then again,
		// and the old claim's result is refused.
		if got := claimAll(t, s, now.Add(30*time.Second)); len(got) != 0 {
			t.Errorf("claims within the lease: %d, want 0", len(got))
		}
		list, err := s.Deliveries(ctx, w.ID, 1)
		if err != nil || len(list) != 1 {
			t.Fatalf("Deliveries: %v, %v", list, err)
		}
		d := list[0]
		if !d.Sending(now) || d.State != fileframe.DeliveryPending {
			t.Errorf("a claimed delivery: %+v, want pending and sending", d)
		}
		_, err = s.RetryDelivery(ctx, d.ID, now)
		wantCode(t, "RetryDelivery while it is sent", err, fileframe.ECONFLICT)
		again := claimAll(t, s, now.Add(2*time.Minute))
		if len(again) != files {
			t.Fatalf("claims after the lease: %d, want %d", len(again), files)
		}
		var first fileframe.DeliveryAttempt
		for _, at := range again {
			if at.Delivery.ID == d.ID {
				first = at
			}
		}
		if first.Delivery.Attempts != 2 {
			t.Errorf("second claim: attempts %d, want 2", first.Delivery.Attempts)
		}
		for _, at := range again {
			if at.Delivery.ID != d.ID {
				if err := s.FinishDelivery(ctx, fileframe.DeliveryResult{ID: at.Delivery.ID, Claim: at.Claim, At: later.Add(time.Hour), Status: 200, Delivered: true}); err != nil {
					t.Fatalf("FinishDelivery: %v", err)
				}
			}
		}
		stale := fileframe.DeliveryResult{ID: d.ID, Claim: "stale", At: now, Delivered: true}
		wantCode(t, "FinishDelivery with a claim no longer held", s.FinishDelivery(ctx, stale), fileframe.ENOTFOUND)

		// A failure with a next time stays pending; one without fails.
		at := now.Add(2 * time.Minute)
		fail := fileframe.DeliveryResult{ID: d.ID, Claim: first.Claim, At: at, Status: 500, Error: "HTTP 500", Duration: 1500 * time.Millisecond,
			NextAttemptAt: at.Add(5 * time.Minute)}
		if err := s.FinishDelivery(ctx, fail); err != nil {
			t.Fatal(err)
		}
		got, err := s.DeliveryByID(ctx, d.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.State != fileframe.DeliveryPending || !got.NextAttemptAt.Equal(ms(fail.NextAttemptAt)) || got.LastStatus != 500 ||
			got.LastError != "HTTP 500" || got.LastDuration != 1500*time.Millisecond || !got.LastAttemptAt.Equal(ms(at)) ||
			got.Sending(at) || !got.FinishedAt.IsZero() || got.EventType != fileframe.EventFileCreated || got.WebhookID != w.ID {
			t.Errorf("after a failed attempt: %+v", got)
		}
		wantCode(t, "FinishDelivery twice", s.FinishDelivery(ctx, fail), fileframe.ENOTFOUND)
		third := claimAll(t, s, fail.NextAttemptAt)
		if len(third) != 1 || third[0].Delivery.ID != d.ID || third[0].Delivery.Attempts != 3 {
			t.Fatalf("claim at the next attempt: %+v", third)
		}
		end := fail.NextAttemptAt.Add(time.Second)
		if err := s.FinishDelivery(ctx, fileframe.DeliveryResult{ID: d.ID, Claim: third[0].Claim, At: end, Status: 0, Error: "refused"}); err != nil {
			t.Fatal(err)
		}
		got, _ = s.DeliveryByID(ctx, d.ID)
		if got.State != fileframe.DeliveryFailed || !got.NextAttemptAt.IsZero() || !got.FinishedAt.Equal(ms(end)) {
			t.Errorf("after the last attempt: %+v, want failed", got)
		}
		// Send again: pending at once, the schedule counted afresh.
		r, err := s.RetryDelivery(ctx, d.ID, end)
		if err != nil {
			t.Fatal(err)
		}
		if r.State != fileframe.DeliveryPending || !r.NextAttemptAt.Equal(ms(end)) || r.SeriesStart != 3 || r.Attempts != 3 || !r.FinishedAt.IsZero() {
			t.Errorf("RetryDelivery: %+v", r)
		}
		_, err = s.RetryDelivery(ctx, "dl_missing", end)
		wantCode(t, "RetryDelivery of a missing delivery", err, fileframe.ENOTFOUND)
		redo := claimAll(t, s, end)
		if len(redo) != 1 {
			t.Fatalf("claims after RetryDelivery: %d, want 1", len(redo))
		}
		if err := s.FinishDelivery(ctx, fileframe.DeliveryResult{ID: d.ID, Claim: redo[0].Claim, At: end, Status: 204, Delivered: true}); err != nil {
			t.Fatal(err)
		}
		if got, _ = s.DeliveryByID(ctx, d.ID); got.State != fileframe.DeliveryDelivered || got.Attempts != 4 {
			t.Errorf("delivered: %+v", got)
		}
		// The clean-up removes finished deliveries, and the events no
		// delivery needs, once they are old enough.
		if n, err := s.DeleteDeliveriesBefore(ctx, end); err != nil || n != 0 {
			t.Errorf("DeleteDeliveriesBefore their end: %d, %v; want 0", n, err)
		}
		if n, err := s.DeleteDeliveriesBefore(ctx, end.Add(time.Second)); err != nil || n != 1 {
			t.Errorf("DeleteDeliveriesBefore after: %d, %v; want 1", n, err)
		}
		_, err = s.DeliveryByID(ctx, d.ID)
		wantCode(t, "DeliveryByID of a collected delivery", err, fileframe.ENOTFOUND)
		// Deleting the endpoint takes its deliveries.
		if err := s.DeleteWebhook(ctx, w.ID); err != nil {
			t.Fatal(err)
		}
		_, err = s.DeliveryByID(ctx, again[1].Delivery.ID)
		wantCode(t, "DeliveryByID after DeleteWebhook", err, fileframe.ENOTFOUND)
	})

	t.Run("a link whose end changes is noticed again when it ends again", func(t *testing.T) {
		s := newStore(t)
		ctx := t.Context()
		a := newAccount(t, s)
		newWebhook(t, s, a.ID, "", fileframe.EventLinkExpired)
		f := newFile(t, s, a.ID)
		end := time.Now().Add(time.Minute)
		mustSetLink(t, s, f.ID, fileframe.Link{ExpiresAt: end})
		if n, _ := s.NotifyEndedLinks(ctx, end, 10); n != 1 {
			t.Errorf("first end: %d noticed, want 1", n)
		}
		// A password alone does not make the same end new.
		mustSetLink(t, s, f.ID, fileframe.Link{ExpiresAt: end, PasswordHash: "$argon2id$v=19$m=8,t=1,p=1$c2FsdHNhbHQ$aGFzaGhhc2g"})
		if n, _ := s.NotifyEndedLinks(ctx, end, 10); n != 0 {
			t.Errorf("the same end after a password: %d noticed, want 0", n)
		}
		end2 := end.Add(time.Hour)
		mustSetLink(t, s, f.ID, fileframe.Link{ExpiresAt: end2})
		if n, _ := s.NotifyEndedLinks(ctx, end2, 10); n != 1 {
			t.Errorf("a renewed link's end: %d noticed, want 1", n)
		}
		if got := eventsOf(claimAll(t, s, later.Add(2*time.Hour))); len(got) != 2 {
			t.Errorf("link.expired events: %q, want 2", got)
		}
	})
}
