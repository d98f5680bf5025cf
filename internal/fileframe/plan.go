package fileframe

// Plan is an account's subscription level.
type Plan string

// The plans, in increasing order. Free: upload and share with the neutral
// default page. Pro: also template appearances and branding. Agency: also
// custom pages and API keys.
const (
	PlanFree   Plan = "free"
	PlanPro    Plan = "pro"
	PlanAgency Plan = "agency"
)

// ParsePlan returns the plan named s, or an EINVALID error.
func ParsePlan(s string) (Plan, error) {
	switch p := Plan(s); p {
	case PlanFree, PlanPro, PlanAgency:
		return p, nil
	}
	return "", Errorf(EINVALID, "Unknown plan %q: use free, pro or agency.", s)
}

// CustomPages reports whether the plan may use API keys and custom pages.
func (p Plan) CustomPages() bool { return p == PlanAgency }

// Templates reports whether the plan may use template appearances.
func (p Plan) Templates() bool { return p == PlanPro || p == PlanAgency }

// Name returns the plan's name as people read it: Free, Pro or Agency.
func (p Plan) Name() string {
	switch p {
	case PlanFree:
		return "Free"
	case PlanPro:
		return "Pro"
	case PlanAgency:
		return "Agency"
	}
	return string(p)
}

// Quota is what one plan may store: Storage bytes in all (the sum of the
// account's file sizes, a file stored twice counting twice, as the owner
// sees it) and files of at most File bytes each. Zero is unlimited.
type Quota struct {
	Storage int64
	File    int64
}
