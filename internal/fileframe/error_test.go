package fileframe

import (
	"errors"
	"fmt"
	"testing"
)

func TestErrorCodeAndMessage(t *testing.T) {
	for _, tt := range []struct {
		name     string
		err      error
		code     string
		message  string
		notFound bool
	}{
		{"nil", nil, "", "", false},
		{"typed", Errorf(ENOTFOUND, "File %s not found.", "x"), ENOTFOUND, "File x not found.", true},
		{"wrapped", fmt.Errorf("sqlite: %w", Errorf(ECONFLICT, "Taken.")), ECONFLICT, "Taken.", false},
		{"internal", errors.New("disk on fire at /var/lib/x"), EINTERNAL, "Internal error.", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := ErrorCode(tt.err); got != tt.code {
				t.Errorf("ErrorCode = %q, want %q", got, tt.code)
			}
			if got := ErrorMessage(tt.err); got != tt.message {
				t.Errorf("ErrorMessage = %q, want %q", got, tt.message)
			}
			if got := IsNotFound(tt.err); got != tt.notFound {
				t.Errorf("IsNotFound = %v, want %v", got, tt.notFound)
			}
		})
	}
}

func TestParsePlan(t *testing.T) {
	for _, s := range []string{"free", "pro", "agency"} {
		if p, err := ParsePlan(s); err != nil || string(p) != s {
			t.Errorf("ParsePlan(%q) = %q, %v", s, p, err)
		}
	}
	for _, s := range []string{"", "Agency", "enterprise"} {
		if _, err := ParsePlan(s); ErrorCode(err) != EINVALID {
			t.Errorf("ParsePlan(%q) error code = %q, want %q", s, ErrorCode(err), EINVALID)
		}
	}
	if !PlanAgency.CustomPages() || PlanPro.CustomPages() || PlanFree.CustomPages() {
		t.Error("only agency may use custom pages")
	}
	if !PlanPro.Templates() || !PlanAgency.Templates() || PlanFree.Templates() {
		t.Error("pro and agency may use templates, free may not")
	}
}
