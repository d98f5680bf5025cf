package postgres

import (
	"testing"
	"time"

	"github.com/fileframe/fileframe/internal/fileframe"
	"github.com/fileframe/fileframe/internal/storetest"
)

// summedUsage is what the account holds, counting its reservations
// unexpired at at, summed over its rows as lockUsage did before migration
// 017 kept totals: the oracle of TestUsage.
func summedUsage(t *testing.T, s fileframe.Store, id fileframe.AccountID, at time.Time) fileframe.Usage {
	t.Helper()
	var u fileframe.Usage
	err := s.(*Store).pool.QueryRow(t.Context(), `
		SELECT (SELECT COALESCE(SUM(size), 0) FROM files WHERE account_id = $1 AND kind = 'file')::bigint
		     + (SELECT COALESCE(SUM(bytes), 0) FROM upload_reservations
		        WHERE account_id = $1 AND expires_at > $2
		          AND (request_id = '' OR EXISTS (SELECT 1 FROM requests q WHERE q.id = upload_reservations.request_id
		               AND q.closed_at IS NULL AND (q.expires_at IS NULL OR q.expires_at > $2))))::bigint
		     + (SELECT COALESCE(SUM(GREATEST(logo_bytes, 0) + GREATEST(background_bytes, 0)), 0)
		        FROM account_appearances WHERE account_id = $1)::bigint
		     + (SELECT COALESCE(SUM(GREATEST(a.logo_bytes, 0) + GREATEST(a.background_bytes, 0)), 0)
		        FROM file_appearances a JOIN files f ON f.id = a.file_id WHERE f.account_id = $1)::bigint
		     + (SELECT COALESCE(SUM(size), 0) FROM (SELECT DISTINCT p.sha256, p.size
		        FROM page_assets p JOIN files f ON f.id = p.file_id WHERE f.account_id = $1 AND p.sha256 <> '') d)::bigint,
		       (SELECT COUNT(*) FROM files WHERE account_id = $1 AND kind = 'file')
		     + (SELECT COUNT(*) FROM upload_reservations
		        WHERE account_id = $1 AND expires_at > $2
		          AND (request_id = '' OR EXISTS (SELECT 1 FROM requests q WHERE q.id = upload_reservations.request_id
		               AND q.closed_at IS NULL AND (q.expires_at IS NULL OR q.expires_at > $2))))`,
		id, ts(at)).Scan(&u.Bytes, &u.Files)
	if err != nil {
		t.Fatalf("summed usage: %v", err)
	}
	return u
}

func TestUsage(t *testing.T) {
	storetest.RunUsage(t, func(t *testing.T) fileframe.Store {
		return open(t, newDatabase(t))
	}, summedUsage)
}
