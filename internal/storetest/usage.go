package storetest

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// UsageOracle returns what account a of store s holds (fileframe.Usage),
// counting its reservations unexpired at at, summed over every row of the
// account as the store counted it before it kept totals. Each backend's
// tests give it with that query, kept there only as the oracle.
type UsageOracle func(t *testing.T, s fileframe.Store, a fileframe.AccountID, at time.Time) fileframe.Usage

// RunUsage checks that the usage a store keeps up to date on each write
// (what Reserve, CreateFileReserved and the other quota checks read, and
// ListAccounts shows) is, after each of a random mix of writes, what
// oracle sums: files of various sizes created and deleted, appearances
// set, measured and cleared on accounts and files, pages whose kept
// assets share hashes across files of one account and across accounts,
// revisions pruned and files deleted with their pages, collections,
// requests and reservations.
func RunUsage(t *testing.T, newStore func(t *testing.T) fileframe.Store, oracle UsageOracle) {
	for _, seed := range []uint64{1, 2, 3} {
		t.Run(fmt.Sprintf("seed %d", seed), func(t *testing.T) {
			testUsage(t, newStore(t), oracle, seed)
		})
	}
}

// usageModel is what testUsage has made and may act on next.
type usageModel struct {
	rng      *rand.Rand
	accounts []fileframe.AccountID
	files    map[fileframe.AccountID][]fileframe.FileID // kind 'file'
	received map[fileframe.AccountID][]fileframe.FileID // through a request, not shared
	colls    map[fileframe.AccountID][]fileframe.FileID
	pages    map[fileframe.FileID]bool
	requests map[fileframe.AccountID]fileframe.RequestID
	reserved map[string]fileframe.AccountID
	unsized  []string // appearance image keys stored unmeasured
	n        int
}

func (m *usageModel) pick(ids []fileframe.FileID) (fileframe.FileID, bool) {
	if len(ids) == 0 {
		return "", false
	}
	return ids[m.rng.IntN(len(ids))], true
}

func (m *usageModel) account() fileframe.AccountID { return m.accounts[m.rng.IntN(len(m.accounts))] }

// anyFile is a file or a collection of account a.
func (m *usageModel) anyFile(a fileframe.AccountID) (fileframe.FileID, bool) {
	return m.pick(slices.Concat(m.files[a], m.received[a], m.colls[a]))
}

// appearance is a random appearance whose images are each missing,
// unmeasured (-1) or of a few sizes.
func (m *usageModel) appearance() fileframe.Appearance {
	a := fileframe.Appearance{Template: "plain", Headline: "h"}
	image := func() (string, int64) {
		m.n++
		switch m.rng.IntN(4) {
		case 0:
			return "", 0
		case 1:
			key := fmt.Sprintf("unsized%d", m.n)
			m.unsized = append(m.unsized, key)
			return key, -1
		default:
			return fmt.Sprintf("img%d", m.n), 1 + m.rng.Int64N(5000)
		}
	}
	a.LogoKey, a.LogoBytes = image()
	a.Background, a.BackgroundBytes = image()
	return a
}

// assets is a random list of remote resources: some not kept, the others
// kept copies from a small pool, so that revisions, files and accounts
// share them; one hash comes in two sizes.
func (m *usageModel) assets() []fileframe.PageAsset {
	var out []fileframe.PageAsset
	for i := range m.rng.IntN(5) {
		a := fileframe.PageAsset{URL: fmt.Sprintf("https://cdn.example/%d.png", i), Kind: fileframe.AssetImage, FetchedAt: stamp}
		if k := m.rng.IntN(7); k == 0 {
			a.Problem = "no answer"
		} else {
			a.SHA256 = fmt.Sprintf("%064x", k%5)
			a.Type, a.Ext, a.Size = "image/png", "png", int64(100*k)
			if k == 6 {
				a.Size = 333 // the hash of k == 1 in another size
			}
		}
		out = append(out, a)
	}
	return out
}

func testUsage(t *testing.T, s fileframe.Store, oracle UsageOracle, seed uint64) {
	ctx := t.Context()
	now := time.Now().UTC().Truncate(time.Millisecond)
	m := &usageModel{
		rng:      rand.New(rand.NewPCG(seed, 15)),
		files:    map[fileframe.AccountID][]fileframe.FileID{},
		received: map[fileframe.AccountID][]fileframe.FileID{},
		colls:    map[fileframe.AccountID][]fileframe.FileID{},
		pages:    map[fileframe.FileID]bool{},
		requests: map[fileframe.AccountID]fileframe.RequestID{},
		reserved: map[string]fileframe.AccountID{},
	}
	for range 3 {
		m.accounts = append(m.accounts, newAccount(t, s).ID)
	}
	check := func(step int, what string) {
		t.Helper()
		listed, err := s.ListAccounts(ctx)
		if err != nil {
			t.Fatalf("ListAccounts: %v", err)
		}
		for _, u := range listed {
			// Past every reservation's expiry, the oracle counts none, as
			// ListAccounts does not.
			want := oracle(t, s, u.ID, now.Add(1000*time.Hour))
			if u.Files != want.Files || u.Bytes != want.Bytes {
				t.Fatalf("step %d (%s), account %s: ListAccounts got %d files, %d bytes; the sum is %d files, %d bytes",
					step, what, u.ID, u.Files, u.Bytes, want.Files, want.Bytes)
			}
		}
		for _, a := range m.accounts {
			want := oracle(t, s, a, now)
			probe := fileframe.Reservation{ID: "probe", AccountID: a, ExpiresAt: now.Add(time.Hour)}
			used, err := s.Reserve(ctx, probe, fileframe.Quota{Files: want.Files + 1}, now)
			if err != nil || used != want.Bytes {
				t.Fatalf("step %d (%s), account %s: Reserve got used %d, %v; the sum is %d bytes, %d files",
					step, what, a, used, err, want.Bytes, want.Files)
			}
			_, err = s.Reserve(ctx, probe, fileframe.Quota{Files: want.Files}, now)
			if want.Files > 0 && fileframe.ErrorCode(err) != fileframe.CodeFileCountExceeded {
				t.Fatalf("step %d (%s), account %s: Reserve with room for %d files got %v, want file_count_exceeded",
					step, what, a, want.Files, err)
			}
			if err := s.ReleaseReservation(ctx, probe.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	check(0, "new accounts")
	for step := 1; step <= 250; step++ {
		a := m.account()
		var what string
		switch op := m.rng.IntN(15); op {
		case 0, 1, 2:
			what = "CreateFile"
			f, err := s.CreateFile(ctx, fileframe.File{AccountID: a, Name: "f", Size: m.rng.Int64N(10_000), BlobKey: "k"})
			if err != nil {
				t.Fatalf("CreateFile: %v", err)
			}
			m.files[a] = append(m.files[a], f.ID)
		case 3:
			what = "Reserve and CreateFileReserved"
			m.n++
			id := fmt.Sprintf("r%d", m.n)
			size := m.rng.Int64N(10_000)
			if _, err := s.Reserve(ctx, fileframe.Reservation{ID: id, AccountID: a, Bytes: size, ExpiresAt: now.Add(time.Hour)}, fileframe.Quota{}, now); err != nil {
				t.Fatalf("Reserve: %v", err)
			}
			if m.rng.IntN(2) == 0 {
				m.reserved[id] = a // held for now
				break
			}
			f, err := s.CreateFileReserved(ctx, fileframe.File{AccountID: a, Name: "f", Size: size, BlobKey: "k"}, id, "", fileframe.Quota{}, now)
			if err != nil {
				t.Fatalf("CreateFileReserved: %v", err)
			}
			m.files[a] = append(m.files[a], f.ID)
		case 4:
			what = "ReleaseReservation"
			ids := slices.Sorted(maps.Keys(m.reserved))
			if len(ids) == 0 {
				continue
			}
			if err := s.ReleaseReservation(ctx, ids[0]); err != nil {
				t.Fatal(err)
			}
			delete(m.reserved, ids[0])
		case 5, 6:
			what = "DeleteFile"
			id, ok := m.anyFile(a)
			if !ok {
				continue
			}
			if _, err := s.DeleteFile(ctx, id); err != nil {
				t.Fatalf("DeleteFile: %v", err)
			}
			other := func(f fileframe.FileID) bool { return f == id }
			m.files[a] = slices.DeleteFunc(m.files[a], other)
			m.received[a] = slices.DeleteFunc(m.received[a], other)
			m.colls[a] = slices.DeleteFunc(m.colls[a], other)
			delete(m.pages, id)
		case 7:
			what = "SetAccountAppearance"
			ap := m.appearance()
			if m.rng.IntN(4) == 0 {
				ap = fileframe.Appearance{}
			}
			if err := s.SetAccountAppearance(ctx, a, ap, 0, now); err != nil {
				t.Fatalf("SetAccountAppearance: %v", err)
			}
		case 8:
			what = "SetFileAppearance"
			id, ok := m.anyFile(a)
			if !ok {
				continue
			}
			ap := m.appearance()
			if m.rng.IntN(4) == 0 {
				ap = fileframe.Appearance{}
			}
			if err := s.SetFileAppearance(ctx, id, ap, 0, now); err != nil {
				t.Fatalf("SetFileAppearance: %v", err)
			}
		case 9:
			what = "SetImageBytes"
			if len(m.unsized) == 0 {
				continue
			}
			key := m.unsized[0]
			m.unsized = m.unsized[1:]
			if err := s.SetImageBytes(ctx, key, m.rng.Int64N(5000)); err != nil {
				t.Fatalf("SetImageBytes: %v", err)
			}
		case 10, 11:
			what = "SavePage"
			id, ok := m.anyFile(a)
			if !ok {
				continue
			}
			// Now and then many revisions at once, so that the oldest are
			// pruned with their assets.
			times := 1
			if m.rng.IntN(8) == 0 {
				times = fileframe.RevisionsKept + 3
			}
			for range times {
				m.n++
				_, err := s.SavePage(ctx, fileframe.PageWrite{FileID: id, HTML: pageHTML(m.n, 50), At: now, Assets: m.assets()})
				if err != nil {
					t.Fatalf("SavePage: %v", err)
				}
			}
			m.pages[id] = true
		case 12:
			what = "SetRevisionAssets"
			id, ok := m.pick(slices.Sorted(maps.Keys(m.pages)))
			if !ok {
				continue
			}
			revs, err := s.Revisions(ctx, id)
			if err != nil || len(revs) == 0 {
				t.Fatalf("Revisions: %d, %v", len(revs), err)
			}
			r := revs[m.rng.IntN(len(revs))]
			if err := s.SetRevisionAssets(ctx, id, r.Number, nil, m.assets(), 0); err != nil {
				t.Fatalf("SetRevisionAssets: %v", err)
			}
		case 13:
			what = "collection"
			items := m.files[a][:min(len(m.files[a]), m.rng.IntN(4))]
			if c, ok := m.pick(m.colls[a]); ok && m.rng.IntN(2) == 0 {
				if len(items) > 0 && m.rng.IntN(2) == 0 {
					_, err := s.RemoveFromCollection(ctx, c, items[0])
					if err != nil && !fileframe.IsNotFound(err) {
						t.Fatalf("RemoveFromCollection: %v", err)
					}
				} else if _, err := s.AddToCollection(ctx, c, items, now); err != nil {
					t.Fatalf("AddToCollection: %v", err)
				}
				break
			}
			c, err := s.CreateCollection(ctx, fileframe.File{AccountID: a, Name: "c"}, items, now)
			if err != nil {
				t.Fatalf("CreateCollection: %v", err)
			}
			m.colls[a] = append(m.colls[a], c.ID)
		case 14:
			what = "CreateRequestFile"
			r, ok := m.requests[a]
			if !ok {
				req, err := s.CreateRequest(ctx, fileframe.Request{AccountID: a, Title: "t", MaxFiles: 1000, MaxBytes: 1 << 40})
				if err != nil {
					t.Fatalf("CreateRequest: %v", err)
				}
				r, m.requests[a] = req.ID, req.ID
			}
			m.n++
			id := fmt.Sprintf("q%d", m.n)
			size := m.rng.Int64N(10_000)
			if _, err := s.Reserve(ctx, fileframe.Reservation{ID: id, AccountID: a, RequestID: r, Bytes: size, ExpiresAt: now.Add(time.Hour)}, fileframe.Quota{}, now); err != nil {
				t.Fatalf("Reserve for a request: %v", err)
			}
			f, err := s.CreateRequestFile(ctx, fileframe.File{AccountID: a, Name: "r", Size: size, BlobKey: "k"},
				fileframe.RequestFile{RequestID: r, VisitID: "v"}, id, "", fileframe.Quota{}, now)
			if err != nil {
				t.Fatalf("CreateRequestFile: %v", err)
			}
			m.received[a] = append(m.received[a], f.ID)
			if m.rng.IntN(3) == 0 {
				if err := s.DeleteRequest(ctx, r); err != nil {
					t.Fatalf("DeleteRequest: %v", err)
				}
				delete(m.requests, a)
			}
		}
		check(step, what)
	}
}
