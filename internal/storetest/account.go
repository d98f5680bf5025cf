package storetest

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
)

// normAccount returns a with its times as the store must at least keep them.
func normAccount(a fileframe.Account) fileframe.Account {
	a.CreatedAt = ms(a.CreatedAt)
	return a
}

func testAccounts(t *testing.T, newStore func(t *testing.T) fileframe.Store) {
	t.Run("CreateAccount sets ID and CreatedAt when empty", func(t *testing.T) {
		s := newStore(t)
		before := time.Now()
		a, err := s.CreateAccount(t.Context(), fileframe.Account{Email: "owner@example.com", Plan: fileframe.PlanFree})
		if err != nil {
			t.Fatalf("CreateAccount: %v", err)
		}
		if a.ID == "" {
			t.Errorf("CreateAccount: ID got empty, want a new ID")
		}
		wantRecent(t, "CreateAccount: CreatedAt", a.CreatedAt, before)
		got, err := s.AccountByID(t.Context(), a.ID)
		if err != nil {
			t.Fatalf("AccountByID: %v", err)
		}
		if got, want := normAccount(got), normAccount(a); got != want {
			t.Errorf("AccountByID: got %+v, want %+v", got, want)
		}
	})

	t.Run("CreateAccount IDs differ", func(t *testing.T) {
		s := newStore(t)
		a, b := newAccount(t, s), newAccount(t, s)
		if a.ID == b.ID {
			t.Errorf("two CreateAccount: got the same ID %q twice, want different IDs", a.ID)
		}
	})

	t.Run("CreateAccount keeps every given field", func(t *testing.T) {
		s := newStore(t)
		want := fileframe.Account{
			ID:           "a_given",
			Email:        "admin@example.com",
			PasswordHash: "$argon2id$v=19$m=65536,t=3,p=4$c2FsdA$aGFzaA",
			Plan:         fileframe.PlanAgency,
			Admin:        true,
			Disabled:     true,
			CreatedAt:    stamp,
		}
		created, err := s.CreateAccount(t.Context(), want)
		if err != nil {
			t.Fatalf("CreateAccount: %v", err)
		}
		if got, want := normAccount(created), normAccount(want); got != want {
			t.Errorf("CreateAccount: got %+v, want %+v", got, want)
		}
		got, err := s.AccountByID(t.Context(), "a_given")
		if err != nil {
			t.Fatalf("AccountByID: %v", err)
		}
		if got, want := normAccount(got), normAccount(want); got != want {
			t.Errorf("AccountByID: got %+v, want %+v", got, want)
		}
	})

	t.Run("CreateAccount lower-cases the email", func(t *testing.T) {
		s := newStore(t)
		a, err := s.CreateAccount(t.Context(), fileframe.Account{Email: "Mixed.Case@Example.COM", Plan: fileframe.PlanPro})
		if err != nil {
			t.Fatalf("CreateAccount: %v", err)
		}
		if got, want := a.Email, "mixed.case@example.com"; got != want {
			t.Errorf("CreateAccount: Email got %q, want %q", got, want)
		}
		got, err := s.AccountByID(t.Context(), a.ID)
		if err != nil {
			t.Fatalf("AccountByID: %v", err)
		}
		if got, want := got.Email, "mixed.case@example.com"; got != want {
			t.Errorf("AccountByID: Email got %q, want %q", got, want)
		}
	})

	t.Run("AccountByEmail finds the account in any case", func(t *testing.T) {
		s := newStore(t)
		a, err := s.CreateAccount(t.Context(), fileframe.Account{Email: "Someone@Example.com", Plan: fileframe.PlanFree})
		if err != nil {
			t.Fatalf("CreateAccount: %v", err)
		}
		for _, email := range []string{"someone@example.com", "SOMEONE@EXAMPLE.COM", "Someone@Example.com"} {
			got, err := s.AccountByEmail(t.Context(), email)
			if err != nil {
				t.Errorf("AccountByEmail(%q): %v", email, err)
				continue
			}
			if got.ID != a.ID {
				t.Errorf("AccountByEmail(%q): ID got %q, want %q", email, got.ID, a.ID)
			}
		}
	})

	t.Run("CreateAccount with a taken email in any case is ECONFLICT", func(t *testing.T) {
		s := newStore(t)
		if _, err := s.CreateAccount(t.Context(), fileframe.Account{Email: "taken@example.com", Plan: fileframe.PlanFree}); err != nil {
			t.Fatalf("CreateAccount: %v", err)
		}
		for _, email := range []string{"taken@example.com", "Taken@Example.COM"} {
			_, err := s.CreateAccount(t.Context(), fileframe.Account{Email: email, Plan: fileframe.PlanPro})
			wantCode(t, "CreateAccount("+email+")", err, fileframe.ECONFLICT)
		}
	})

	t.Run("CreateAccount with a taken ID is ECONFLICT", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		_, err := s.CreateAccount(t.Context(), fileframe.Account{ID: a.ID, Email: "other@example.com", Plan: fileframe.PlanFree})
		wantCode(t, "CreateAccount(taken ID)", err, fileframe.ECONFLICT)
	})

	t.Run("CreateAccount with an unknown or empty plan is EINVALID", func(t *testing.T) {
		s := newStore(t)
		for _, p := range []fileframe.Plan{"", "enterprise", "Agency"} {
			_, err := s.CreateAccount(t.Context(), fileframe.Account{Email: fileframe.RandomBase62(8) + "@example.com", Plan: p})
			wantCode(t, "CreateAccount(plan "+string(p)+")", err, fileframe.EINVALID)
		}
	})

	t.Run("AccountByID and AccountByEmail of a missing account are ENOTFOUND", func(t *testing.T) {
		s := newStore(t)
		newAccount(t, s)
		_, err := s.AccountByID(t.Context(), "a_missing")
		wantCode(t, "AccountByID(missing)", err, fileframe.ENOTFOUND)
		_, err = s.AccountByEmail(t.Context(), "nobody@example.com")
		wantCode(t, "AccountByEmail(missing)", err, fileframe.ENOTFOUND)
	})

	t.Run("SetAccountPlan changes the plan of that account only", func(t *testing.T) {
		s := newStore(t)
		a, other := newAccount(t, s), newAccount(t, s)
		for _, p := range []fileframe.Plan{fileframe.PlanFree, fileframe.PlanPro, fileframe.PlanAgency} {
			if err := s.SetAccountPlan(t.Context(), a.ID, p); err != nil {
				t.Fatalf("SetAccountPlan(%s): %v", p, err)
			}
			got, err := s.AccountByID(t.Context(), a.ID)
			if err != nil {
				t.Fatalf("AccountByID: %v", err)
			}
			if got.Plan != p {
				t.Errorf("after SetAccountPlan(%s): Plan got %q, want %q", p, got.Plan, p)
			}
		}
		if err := s.SetAccountPlan(t.Context(), a.ID, fileframe.PlanFree); err != nil {
			t.Fatalf("SetAccountPlan: %v", err)
		}
		got, err := s.AccountByID(t.Context(), other.ID)
		if err != nil {
			t.Fatalf("AccountByID: %v", err)
		}
		if got.Plan != other.Plan {
			t.Errorf("other account: Plan got %q, want %q", got.Plan, other.Plan)
		}
	})

	t.Run("SetAccountPlan to the current plan succeeds", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		if err := s.SetAccountPlan(t.Context(), a.ID, a.Plan); err != nil {
			t.Errorf("SetAccountPlan(same plan): got %v, want nil", err)
		}
	})

	t.Run("SetAccountPlan of a missing account is ENOTFOUND", func(t *testing.T) {
		s := newStore(t)
		err := s.SetAccountPlan(t.Context(), "a_missing", fileframe.PlanPro)
		wantCode(t, "SetAccountPlan(missing)", err, fileframe.ENOTFOUND)
	})

	t.Run("SetAccountPlan with an unknown plan is EINVALID", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		err := s.SetAccountPlan(t.Context(), a.ID, "enterprise")
		wantCode(t, "SetAccountPlan(enterprise)", err, fileframe.EINVALID)
		got, err := s.AccountByID(t.Context(), a.ID)
		if err != nil {
			t.Fatalf("AccountByID: %v", err)
		}
		if got.Plan != a.Plan {
			t.Errorf("after a refused SetAccountPlan: Plan got %q, want %q", got.Plan, a.Plan)
		}
	})
}

func testAccountAdmin(t *testing.T, newStore func(t *testing.T) fileframe.Store) {
	t.Run("CreateFirstAccount creates exactly one account among concurrent calls", func(t *testing.T) {
		s := newStore(t)
		const n = 8
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				_, errs[i] = s.CreateFirstAccount(t.Context(), fileframe.Account{
					Email: fmt.Sprintf("admin%d@example.com", i), Plan: fileframe.PlanAgency, Admin: true, PasswordHash: "ph",
				})
			})
		}
		wg.Wait()
		created := 0
		for i, err := range errs {
			switch {
			case err == nil:
				created++
			case fileframe.ErrorCode(err) != fileframe.ECONFLICT:
				t.Errorf("CreateFirstAccount #%d: %v, want nil or ECONFLICT", i, err)
			}
		}
		if count, err := s.CountAccounts(t.Context()); created != 1 || count != 1 || err != nil {
			t.Errorf("%d calls created %d accounts; CountAccounts = %d, %v; want exactly 1", n, created, count, err)
		}
		// Once set up, it refuses even a single caller.
		if _, err := s.CreateFirstAccount(t.Context(), fileframe.Account{Email: "late@example.com", Plan: fileframe.PlanAgency, PasswordHash: "ph"}); fileframe.ErrorCode(err) != fileframe.ECONFLICT {
			t.Errorf("CreateFirstAccount after setup: %v, want ECONFLICT", err)
		}
	})

	t.Run("CountAccounts counts accounts, 0 when fresh", func(t *testing.T) {
		s := newStore(t)
		for want := range 4 {
			n, err := s.CountAccounts(t.Context())
			if err != nil {
				t.Fatalf("CountAccounts: %v", err)
			}
			if n != want {
				t.Errorf("CountAccounts: got %d, want %d", n, want)
			}
			newAccount(t, s)
		}
	})

	t.Run("ListAccounts lists oldest first with files and bytes, appearance images counted", func(t *testing.T) {
		s := newStore(t)
		list, err := s.ListAccounts(t.Context())
		if err != nil {
			t.Fatalf("ListAccounts(fresh): %v", err)
		}
		if len(list) != 0 {
			t.Errorf("ListAccounts(fresh): got %d accounts, want none", len(list))
		}
		// Created out of order: the list follows CreatedAt.
		var accounts []fileframe.Account
		for _, c := range []struct {
			email string
			at    time.Time
		}{{"b@example.com", stamp.Add(time.Hour)}, {"a@example.com", stamp}, {"c@example.com", stamp.Add(2 * time.Hour)}} {
			a, err := s.CreateAccount(t.Context(), fileframe.Account{Email: c.email, Plan: fileframe.PlanPro, PasswordHash: "ph", CreatedAt: c.at})
			if err != nil {
				t.Fatalf("CreateAccount: %v", err)
			}
			accounts = append(accounts, a)
		}
		b, a, c := accounts[0], accounts[1], accounts[2]
		var cFile fileframe.File
		for _, f := range []struct {
			account fileframe.AccountID
			size    int64
		}{{a.ID, 10}, {a.ID, 1 << 40}, {a.ID, 0}, {c.ID, 7}} {
			if cFile, err = s.CreateFile(t.Context(), fileframe.File{AccountID: f.account, Name: "x", Size: f.size, BlobKey: "k"}); err != nil {
				t.Fatalf("CreateFile: %v", err)
			}
		}
		// Images count as the quota counts them: each appearance's own,
		// and an image not yet measured as nothing.
		if err := s.SetAccountAppearance(t.Context(), c.ID, fileframe.Appearance{Template: "t", LogoKey: "l", LogoBytes: 100, BackgroundBytes: 20}, 0, time.Now()); err != nil {
			t.Fatalf("SetAccountAppearance: %v", err)
		}
		if err := s.SetFileAppearance(t.Context(), cFile.ID, fileframe.Appearance{Template: "t", LogoKey: "l", LogoBytes: 100, BackgroundBytes: fileframe.UnmeasuredImage}, 0, time.Now()); err != nil {
			t.Fatalf("SetFileAppearance: %v", err)
		}
		list, err = s.ListAccounts(t.Context())
		if err != nil {
			t.Fatalf("ListAccounts: %v", err)
		}
		want := []fileframe.AccountUsage{
			{Account: a, Files: 3, Bytes: 10 + 1<<40},
			{Account: b, Files: 0, Bytes: 0},
			{Account: c, Files: 1, Bytes: 7 + 120 + 100},
		}
		if len(list) != len(want) {
			t.Fatalf("ListAccounts: got %d accounts, want %d", len(list), len(want))
		}
		for i := range want {
			got := list[i]
			got.CreatedAt = ms(got.CreatedAt)
			want[i].CreatedAt = ms(want[i].CreatedAt)
			if got != want[i] {
				t.Errorf("ListAccounts[%d]: got %+v, want %+v", i, got, want[i])
			}
		}
	})

	t.Run("ListAccounts orders accounts made in one millisecond as they were made", func(t *testing.T) {
		s := newStore(t)
		var ids []fileframe.AccountID
		for i := range 5 {
			// IDs in descending order, so that an order by ID would show.
			a, err := s.CreateAccount(t.Context(), fileframe.Account{ID: fileframe.AccountID(fmt.Sprintf("a_%d", 9-i)), Email: fmt.Sprintf("u%d@example.com", i), Plan: fileframe.PlanFree, CreatedAt: stamp})
			if err != nil {
				t.Fatalf("CreateAccount: %v", err)
			}
			ids = append(ids, a.ID)
		}
		list, err := s.ListAccounts(t.Context())
		if err != nil {
			t.Fatalf("ListAccounts: %v", err)
		}
		var got []fileframe.AccountID
		for _, u := range list {
			got = append(got, u.ID)
		}
		if !slices.Equal(got, ids) {
			t.Errorf("ListAccounts: IDs got %v, want %v", got, ids)
		}
	})

	t.Run("SetAccountPassword replaces the hash", func(t *testing.T) {
		s := newStore(t)
		a, b := newAccount(t, s), newAccount(t, s)
		if err := s.SetAccountPassword(t.Context(), a.ID, "$argon2id$new"); err != nil {
			t.Fatalf("SetAccountPassword: %v", err)
		}
		got, err := s.AccountByID(t.Context(), a.ID)
		if err != nil {
			t.Fatalf("AccountByID: %v", err)
		}
		if got.PasswordHash != "$argon2id$new" {
			t.Errorf("PasswordHash: got %q, want %q", got.PasswordHash, "$argon2id$new")
		}
		if got, err := s.AccountByID(t.Context(), b.ID); err != nil || got.PasswordHash != b.PasswordHash {
			t.Errorf("another account: PasswordHash got %q, %v, want %q", got.PasswordHash, err, b.PasswordHash)
		}
		err = s.SetAccountPassword(t.Context(), "a_missing", "x")
		wantCode(t, "SetAccountPassword(missing)", err, fileframe.ENOTFOUND)
	})

	t.Run("SetAccountDisabled disables and re-enables, keeping everything", func(t *testing.T) {
		s := newStore(t)
		a := newAccount(t, s)
		f := newFile(t, s, a.ID)
		k := newKey(t, s, a.ID, "")
		for _, disabled := range []bool{true, true, false} {
			if err := s.SetAccountDisabled(t.Context(), a.ID, disabled); err != nil {
				t.Fatalf("SetAccountDisabled(%v): %v", disabled, err)
			}
			got, err := s.AccountByID(t.Context(), a.ID)
			if err != nil {
				t.Fatalf("AccountByID: %v", err)
			}
			if got.Disabled != disabled {
				t.Errorf("after SetAccountDisabled(%v): Disabled got %v", disabled, got.Disabled)
			}
			if got.Plan != a.Plan || got.Email != a.Email {
				t.Errorf("after SetAccountDisabled(%v): got %+v, want only Disabled changed from %+v", disabled, got, a)
			}
			if _, err := s.FileByID(t.Context(), f.ID); err != nil {
				t.Errorf("FileByID of a disabled account's file: %v, want it kept", err)
			}
			if _, err := s.KeyByHash(t.Context(), k.Hash); err != nil {
				t.Errorf("KeyByHash of a disabled account's key: %v, want it kept", err)
			}
		}
		err := s.SetAccountDisabled(t.Context(), "a_missing", true)
		wantCode(t, "SetAccountDisabled(missing)", err, fileframe.ENOTFOUND)
	})
}
