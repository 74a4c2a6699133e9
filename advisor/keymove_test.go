package advisor

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/partition"
	"github.com/shardkey/shardkey/sqllog"
)

// moveLog returns a PostgreSQL stderr log of n seconds of an orders
// table: each second, one read by user_id, one by id, and one UPDATE
// that gives an order (bound by id and user_id) another user_id.
func moveLog(n int) string {
	var b strings.Builder
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for k := range n {
		stamp := t0.Add(time.Duration(k)*time.Second).Format("2006-01-02 15:04:05") + ".000 UTC"
		fmt.Fprintf(&b, "%s [10] app@db LOG:  statement: SELECT * FROM orders WHERE user_id = %d;\n", stamp, 1+k*7%50)
		fmt.Fprintf(&b, "%s [11] app@db LOG:  statement: SELECT * FROM orders WHERE id = %d;\n", stamp, 1000+k*13%97)
		fmt.Fprintf(&b, "%s [12] app@db LOG:  statement: UPDATE orders SET user_id = %d WHERE id = %d AND user_id = %d;\n", stamp, 100+k, 1000+k, 1+k%50)
	}
	return b.String()
}

func adviseMoves(t *testing.T, engine string) *Advice {
	t.Helper()
	w := &shardkey.Workload{}
	if err := sqllog.Read(context.Background(), w, strings.NewReader(moveLog(200)), "orders.log", sqllog.Options{}); err != nil {
		t.Fatal(err)
	}
	eng, err := partition.Lookup(engine)
	if err != nil {
		t.Fatal(err)
	}
	adv, err := Recommend(w, Options{Shards: 8, Seed: 1, Engine: eng})
	if err != nil {
		t.Fatal(err)
	}
	return adv
}

// TestKeyMoveReasons: every logged UPDATE sets user_id to a new value,
// so under hash(user_id) each moves its row: the update operation's
// key_moves_per_s is its requests_per_s and its work twice that (one unit
// where the row was, one where it goes); under hash(id) nothing moves and
// no reason says so. Citus, Cassandra and Vitess refuse such an update:
// hash(user_id) is rejected there, with the engine's words; under
// CockroachDB it stays viable with the move's reason.
func TestKeyMoveReasons(t *testing.T) {
	for _, tc := range []struct {
		engine, words string
		refused       bool
		byUser, byID  string // the keys as the engine's candidates spell them
	}{
		{"citus", "modifying the partition value of rows is not allowed", true, "", ""},
		{"cassandra", "found in SET part", true, "", ""},
		{"vitess", "you cannot UPDATE primary vindex columns", true, "", ""},
		{"cockroachdb", "CockroachDB moves the row", false, "", ""},
		{"mongodb", "retryable write", false, `{user_id: "hashed"}`, `{id: "hashed"}`},
		{"generic", "a delete on the old shard and an insert on the new one", false, "", ""},
	} {
		adv := adviseMoves(t, tc.engine)
		if tc.byUser == "" {
			tc.byUser, tc.byID = "hash(user_id)", "hash(id)"
		}
		uk, ik := candidate(adv, tc.byUser), candidate(adv, tc.byID)
		if uk == nil || ik == nil {
			t.Fatalf("%s: hash(user_id) or hash(id) not among the candidates: %v", tc.engine, adv.Summary)
		}
		var upd *struct{ req, work, moves float64 }
		for _, op := range uk.Score.Operations {
			if op.Kind == "update" {
				upd = &struct{ req, work, moves float64 }{op.RequestsPerS, op.WorkPerS, op.KeyMovesPerS}
			}
		}
		if upd == nil || upd.req <= 0 || !closeTo(upd.moves, upd.req) || !closeTo(upd.work, 2*upd.req) {
			t.Errorf("%s: hash(user_id) update: %+v; want moves = requests, work = 2 x requests", tc.engine, upd)
		}
		reason := ""
		for _, r := range uk.Reasons {
			if strings.Contains(r, "sets user_id, the shard key of orders") {
				reason = r
			}
		}
		if !strings.Contains(reason, tc.words) {
			t.Errorf("%s: hash(user_id) reasons %q; want one on the key update with %q", tc.engine, uk.Reasons, tc.words)
		}
		if uk.Viable == tc.refused {
			t.Errorf("%s: hash(user_id) viable %v (rejection %q); want %v", tc.engine, uk.Viable, uk.Rejection, !tc.refused)
		}
		if tc.refused && !strings.Contains(uk.Rejection, tc.words) {
			t.Errorf("%s: hash(user_id) rejection %q; want the engine's words %q", tc.engine, uk.Rejection, tc.words)
		}
		for _, op := range ik.Score.Operations {
			if op.KeyMovesPerS != 0 {
				t.Errorf("%s: hash(id) %s moves %v rows/s; want none", tc.engine, op.Name, op.KeyMovesPerS)
			}
		}
		for _, r := range ik.Reasons {
			if strings.Contains(r, "the shard key of") {
				t.Errorf("%s: hash(id) reason %q", tc.engine, r)
			}
		}
	}
}

func closeTo(a, b float64) bool { return a-b < 1e-9*(1+b) && b-a < 1e-9*(1+b) }
