package storetest

import (
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
