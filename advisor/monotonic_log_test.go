package advisor

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/sqllog"
)

// seriesLog returns a PostgreSQL stderr log of an append-only time
// series: n inserts into readings, one a second, the k-th at ts = t0 + k
// seconds (or at t0 + order[k] seconds when order is given: not
// append-only), each followed by a read of a 10-second window of ts
// already written; with byDevice, also a read of one device's readings.
func seriesLog(n int, order []int, byDevice bool) string {
	var b strings.Builder
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	at := func(s int) string { return t0.Add(time.Duration(s) * time.Second).Format("2006-01-02 15:04:05") }
	for k := range n {
		stamp := t0.Add(time.Duration(k)*time.Second).Format("2006-01-02 15:04:05") + ".000 UTC"
		v := k
		if order != nil {
			v = order[k]
		}
		fmt.Fprintf(&b, "%s [10] app@db LOG:  statement: INSERT INTO readings (ts, device_id, value) VALUES ('%s', %d, %d.5);\n", stamp, at(v), 1+k*7%50, k)
		lo := k * 13 % (k + 1)
		fmt.Fprintf(&b, "%s [11] app@db LOG:  statement: SELECT avg(value) FROM readings WHERE ts >= '%s' AND ts < '%s';\n", stamp, at(lo), at(lo+10))
		if byDevice {
			fmt.Fprintf(&b, "%s [12] app@db LOG:  statement: SELECT ts, value FROM readings WHERE device_id = %d ORDER BY ts DESC LIMIT 10;\n", stamp, 1+k*11%50)
		}
	}
	return b.String()
}

func adviseLog(t *testing.T, log string) *Advice {
	t.Helper()
	w := &shardkey.Workload{}
	if err := sqllog.Read(context.Background(), w, strings.NewReader(log), "series.log", sqllog.Options{}); err != nil {
		t.Fatal(err)
	}
	adv, err := Recommend(w, Options{Shards: 8, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	return adv
}

func candidate(adv *Advice, key string) *Assessment {
	for _, as := range adv.Candidates {
		if as.Key == key {
			return as
		}
	}
	return nil
}

// TestMonotonicLogKeyRejected: a log of an append-only time series (ts
// only grows: Spearman's rho with insert order is exactly 1) read by ts
// ranges does not get range(ts) recommended: every insert after the log
// lands past the last boundary, however evenly boundaries fitted to the
// log spread the logged inserts. range(ts) is rejected in the words the
// social demo uses for its monotonic created_at; with a device read
// hash(device_id) is recommended instead, and without one the headline
// says no design is viable. The same log with ts shuffled (not
// monotonic), or with only 19 inserts (too few to tell), keeps range(ts).
func TestMonotonicLogKeyRejected(t *testing.T) {
	const reject = "ts is monotonic (rank correlation 1.00 with insert order), so every new row goes to the last range"

	adv := adviseLog(t, seriesLog(400, nil, true))
	rt := candidate(adv, "range(ts)")
	if rt == nil {
		t.Fatalf("range(ts) not among the candidates: %v", adv.Summary)
	}
	if rt.Viable || rt.Rejection != reject {
		t.Errorf("range(ts): viable %v, rejection %q; want rejected: %q", rt.Viable, rt.Rejection, reject)
	}
	if adv.Recommended == "range(ts)" || !adv.Candidates[0].Viable {
		t.Errorf("recommended %s (viable %v), want a viable design, not range(ts)", adv.Recommended, adv.Candidates[0].Viable)
	}
	if !strings.HasPrefix(adv.Summary[0], "Shard by hash(device_id).") {
		t.Errorf("headline %q, want hash(device_id)", adv.Summary[0])
	}

	adv = adviseLog(t, seriesLog(400, nil, false))
	if adv.Candidates[0].Viable {
		t.Fatalf("reads by ts alone: %s viable, want every candidate rejected", adv.Candidates[0].Key)
	}
	want := "No viable design: every candidate is rejected. The best of them, range(ts), is rejected: " + reject + ". Under it: "
	if !strings.HasPrefix(adv.Summary[0], want) {
		t.Errorf("headline %q, want it to start %q", adv.Summary[0], want)
	}

	// ts in a shuffled order: not monotonic, range(ts) stays.
	order := make([]int, 400)
	for k := range order {
		order[k] = k * 97 % 400 // 97 is prime to 400: a permutation
	}
	adv = adviseLog(t, seriesLog(400, order, false))
	if rt := candidate(adv, "range(ts)"); rt == nil || !rt.Viable {
		t.Errorf("shuffled ts: range(ts) %+v, want viable", rt)
	}
	adv = adviseLog(t, seriesLog(19, nil, false))
	if rt := candidate(adv, "range(ts)"); rt == nil || !rt.Viable {
		t.Errorf("19 inserts: range(ts) %+v, want viable (too few inserts to judge)", rt)
	}
}
