package watch

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/partition"
	"github.com/shardkey/shardkey/sim"
)

// window builds one window's workload on table t(id, other): get reads by
// id (one instance per id in ids, weight 1 each), scan reads by other
// (scatters under hash(id)) at scanRate requests/s.
func window(ids []int64, scanRate float64) *shardkey.Workload {
	t := &shardkey.Table{Name: "t", Columns: []*shardkey.Column{{Name: "id", Type: shardkey.Int64}, {Name: "other", Type: shardkey.Int64}}}
	get := &shardkey.Operation{Name: "read t where id = ?", Table: 0, Kind: shardkey.Read, Rate: float64(len(ids))}
	for _, id := range ids {
		get.Instances = append(get.Instances, shardkey.Instance{Weight: 1, Conds: []shardkey.Cond{{Col: 0, Op: shardkey.Eq, Val: shardkey.IntValue(id)}}})
	}
	w := &shardkey.Workload{Tables: []*shardkey.Table{t}, Ops: []*shardkey.Operation{get}}
	if scanRate > 0 {
		w.Ops = append(w.Ops, &shardkey.Operation{Name: "read t where other = ?", Table: 0, Kind: shardkey.Read, Rate: scanRate,
			Instances: []shardkey.Instance{{Weight: 1, Conds: []shardkey.Cond{{Col: 1, Op: shardkey.Eq, Val: shardkey.IntValue(3)}}}}})
	}
	return w
}

// TestWatcher_Events walks a design through five windows, each event's
// figures worked by hand (100 reads by distinct ids per window unless
// said; 4 shards):
//
//  1. baseline, no scan: nothing (max/mean of 100 ids over 4 shards is
//     below 1.5 for this sample: checked below);
//  2. a new shape reading by other appears at 10/s: it scatters (fraction
//     1 >= 0.5): new_scatter_shape; its scatter share is 10/110;
//  3. the scan rises to 50/s: scatter share 50/150 = 0.333, up 0.242 on
//     0.0909: scatter_rise;
//  4. id 7 takes 20 of 100 reads (0.2 > 0.05, unseen before): hot_key;
//  5. id 7 still at 20%: no second hot_key (it never fell below 1%).
func TestWatcher_Events(t *testing.T) {
	wt, err := New(Options{Designs: []string{"hash(id)"}, Sim: sim.Options{Shards: 4}})
	if err != nil {
		t.Fatal(err)
	}
	ids := func(hot int) []int64 {
		var out []int64
		for i := range 100 - hot {
			out = append(out, int64(1000+i))
		}
		for range hot {
			out = append(out, 7)
		}
		return out
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	steps := []struct {
		w    *shardkey.Workload
		want string // event types and subjects, in order
	}{
		{window(ids(0), 0), ""},
		{window(ids(0), 10), "new_scatter_shape read t where other = ?"},
		{window(ids(0), 50), "scatter_rise read t where other = ?"},
		{window(ids(20), 50), "hot_key 7"},
		{window(ids(20), 50), ""},
	}
	for i, s := range steps {
		r, err := wt.Add(Span{Start: t0.Add(time.Duration(i) * time.Minute), End: t0.Add(time.Duration(i+1) * time.Minute), Seconds: 1}, s.w)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range r.Events {
			if e.Type == "work_ratio" {
				continue // depends on the hash; checked separately
			}
			got = append(got, e.Type+" "+e.Key+e.Shape)
		}
		if strings.Join(got, "; ") != s.want {
			t.Errorf("window %d: events %q; want %q", i+1, got, s.want)
		}
		d := r.Designs[0]
		switch i {
		case 2:
			if sh := d.Shapes[1]; !close(sh.ScatterShare, 50.0/150) {
				t.Errorf("window 3: scan scatter share %v; want 1/3", sh.ScatterShare)
			}
		case 3:
			// Requests: 100 reads + 50 scans; id 7: 20 of them.
			if k := d.TopKeys[0]; k.Key != "7" || !close(k.Share, 20.0/150) {
				t.Errorf("window 4: top key %+v; want 7 at 20/150", k)
			}
		}
	}
}

// TestWatcher_WorkRatioRearms: work_ratio is raised when max/mean crosses
// its threshold, not again while it stays above, and again after it fell
// back. One key takes all reads (max/mean = 4 on 4 shards), then 400
// distinct keys (below 1.5), then the one key again.
func TestWatcher_WorkRatioRearms(t *testing.T) {
	wt, _ := New(Options{Designs: []string{"hash(id)"}, Sim: sim.Options{Shards: 4}})
	one := make([]int64, 100)
	spread := make([]int64, 400)
	for i := range spread {
		spread[i] = int64(i)
	}
	var got []int
	for i, w := range []*shardkey.Workload{window(one, 0), window(one, 0), window(spread, 0), window(one, 0)} {
		r, _ := wt.Add(Span{Seconds: 1}, w)
		if d := r.Designs[0]; i != 2 && !close(d.WorkRatio, 4) || i == 2 && d.WorkRatio > 1.5 {
			t.Fatalf("window %d: work ratio %v", i+1, d.WorkRatio)
		}
		for _, e := range r.Events {
			if e.Type == "work_ratio" {
				got = append(got, i+1)
			}
		}
	}
	if len(got) != 2 || got[0] != 1 || got[1] != 4 {
		t.Errorf("work_ratio in windows %v; want 1 and 4", got)
	}
}

func close(a, b float64) bool { return a-b < 1e-12 && b-a < 1e-12 }

// TestWatcher_LaterTable: a table a design names is checked against the
// first window that reads it, not against the first window: a design of
// t and u is scored in a first window that reads t alone (u's key left
// out) and in a second that reads both; one whose key for u names no
// column of u is dropped, with a warning, in the window that first reads
// u (windows were reported: the run and the other designs go on), but
// refused (a usage error) when that is the first window. A design keying
// a table no window reads (misspelt) is scored without it and warned
// about at its first window and at Close. After Check
// against a catalog holding both tables, the valid design is accepted and
// a window that lacks u is scored without it; the invalid one is refused
// by Check itself.
func TestWatcher_LaterTable(t *testing.T) {
	u := func(w *shardkey.Workload) *shardkey.Workload {
		w.Tables = append(w.Tables, &shardkey.Table{Name: "u", Columns: []*shardkey.Column{{Name: "uid", Type: shardkey.Int64}}})
		w.Ops = append(w.Ops, &shardkey.Operation{Name: "read u where uid = ?", Table: 1, Kind: shardkey.Read, Rate: 5,
			Instances: []shardkey.Instance{{Weight: 1, Conds: []shardkey.Cond{{Col: 0, Op: shardkey.Eq, Val: shardkey.IntValue(3)}}}}})
		return w
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	span := func(i int) Span {
		return Span{Start: t0.Add(time.Duration(i) * time.Minute), End: t0.Add(time.Duration(i+1) * time.Minute), Seconds: 60, Statements: 10}
	}
	wt, err := New(Options{Designs: []string{"t:hash(id); u:hash(uid)"}, Sim: sim.Options{Shards: 4}})
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range []*shardkey.Workload{window([]int64{1, 2, 3}, 0), u(window([]int64{1, 2, 3}, 0))} {
		rep, err := wt.Add(span(i), w)
		if err != nil {
			t.Fatalf("window %d: %v", i, err)
		}
		// 3 reads of t (rate 3), then 3 of t and 5 of u: requests/s 3, 8.
		want := []float64{3, 8}[i]
		if len(rep.Designs) != 1 || !close(float64(rep.Designs[0].RequestsPerS), want) {
			t.Fatalf("window %d: designs %+v; want one at %v requests/s", i, rep.Designs, want)
		}
	}
	wt, _ = New(Options{Designs: []string{"t:hash(id); u:hash(nosuch)", "hash(id)"}, Sim: sim.Options{Shards: 4}})
	if _, err := wt.Add(span(0), window([]int64{1, 2, 3}, 0)); err != nil {
		t.Fatalf("first window, without u: %v", err)
	}
	for i := 1; i <= 2; i++ {
		rep, err := wt.Add(span(i), u(window([]int64{1, 2, 3}, 0)))
		if err != nil {
			t.Fatalf("window %d: %v; want the bad design dropped, not an error", i, err)
		}
		if len(rep.Designs) != 1 || rep.Designs[0].Key != "hash(id)" {
			t.Errorf("window %d: designs %+v; want hash(id) alone", i, rep.Designs)
		}
		warned := strings.Join(rep.Warnings, "\n")
		dropped := strings.Contains(warned, "does not fit table u, in the window that first reads it") && strings.Contains(warned, `no column "nosuch"`) && strings.Contains(warned, "dropped from this window on")
		if dropped != (i == 1) {
			t.Errorf("window %d: warnings %q; want the drop warned about in window 1 only", i, rep.Warnings)
		}
	}
	if warns, err := wt.Close(); err != nil || len(warns) != 1 || !strings.Contains(warns[0], "t:hash(id); u:hash(nosuch) was dropped") {
		t.Errorf("Close after a drop: %v, %q", err, warns)
	}
	// In the first window: refused up front.
	wt, _ = New(Options{Designs: []string{"t:hash(id); u:hash(nosuch)"}, Sim: sim.Options{Shards: 4}})
	_, err = wt.Add(span(0), u(window([]int64{1, 2, 3}, 0)))
	var ue *shardkey.UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), `no column "nosuch"`) {
		t.Errorf("u in the first window: %v; want a usage error naming the column", err)
	}
	// A misspelt table: warned about at the first window (naming the
	// tables read) and at Close; the design is scored on t.
	wt, _ = New(Options{Designs: []string{"t:hash(id); uu:hash(uid)"}, Sim: sim.Options{Shards: 4}})
	for i := range 2 {
		rep, err := wt.Add(span(i), u(window([]int64{1, 2, 3}, 0)))
		if err != nil || len(rep.Designs) != 1 {
			t.Fatalf("window %d: %v, %+v", i, err, rep)
		}
		want := "design t:hash(id); uu:hash(uid) keys table uu, which no window has read so far (tables read: t, u)"
		if got := strings.Join(rep.Warnings, "\n"); strings.Contains(got, want) != (i == 0) {
			t.Errorf("window %d: warnings %q; want %q in the first window only", i, rep.Warnings, want)
		}
	}
	want := "design t:hash(id); uu:hash(uid) keys table uu, which no window of the log read (tables read: t, u)"
	if warns, err := wt.Close(); err != nil || len(warns) != 1 || !strings.HasPrefix(warns[0], want) {
		t.Errorf("Close: %v, %q; want %q", err, warns, want)
	}
	cat := u(window([]int64{1}, 0))
	wt, _ = New(Options{Designs: []string{"t:hash(id); u:hash(uid)"}, Sim: sim.Options{Shards: 4}})
	if err := wt.Check(cat); err != nil {
		t.Fatalf("Check: %v", err)
	}
	if rep, err := wt.Add(span(0), window([]int64{1, 2, 3}, 0)); err != nil || len(rep.Designs) != 1 {
		t.Errorf("after Check, a window without u: %v, %+v", err, rep)
	}
	wt, _ = New(Options{Designs: []string{"t:hash(id); u:hash(nosuch)"}, Sim: sim.Options{Shards: 4}})
	if err := wt.Check(cat); !errors.As(err, &ue) || !strings.Contains(err.Error(), "does not fit the database's tables") {
		t.Errorf("Check of u:hash(nosuch): %v; want a usage error", err)
	}
}

// TestWatcher_HotKeyFewKeys: with few distinct keys the hot threshold is
// HotSpread (3) times the even share, not a flat 5%. Worked by hand:
//
//  1. 10 keys, 10 reads each: 10% each; even share 10%, threshold
//     max(5%, 30%) = 30%: no key is hot (a flat 5% raised all ten);
//  2. key 1 takes 50 of 95 reads, the 9 others 5 each: even 10%,
//     threshold 30%; key 1 at 52.6%: hot_key 1, the others (5.3%) not;
//  3. the same: no second hot_key (key 1 has not re-armed);
//  4. even again (10%): key 1 is below 1.5 × 10% = 15%: re-armed;
//  5. key 1 at 50 of 95 again: hot_key 1 again.
//
// With many keys (1000 reads of distinct keys plus 60 of key 7: even
// share 1/1001 of the keyed reads) the flat 5% applies: 60/1060 = 5.7%.
func TestWatcher_HotKeyFewKeys(t *testing.T) {
	wt, err := New(Options{Designs: []string{"hash(id)"}, Sim: sim.Options{Shards: 4}})
	if err != nil {
		t.Fatal(err)
	}
	spread := func(first, others int) []int64 {
		var out []int64
		for range first {
			out = append(out, 1)
		}
		for k := int64(2); k <= 10; k++ {
			for range others {
				out = append(out, k)
			}
		}
		return out
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, s := range []struct {
		ids  []int64
		want string
	}{
		{spread(10, 10), ""},
		{spread(50, 5), "1"},
		{spread(50, 5), ""},
		{spread(10, 10), ""},
		{spread(50, 5), "1"},
	} {
		r, err := wt.Add(Span{Start: t0.Add(time.Duration(i) * time.Minute), End: t0.Add(time.Duration(i+1) * time.Minute), Seconds: 1}, window(s.ids, 0))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range r.Events {
			if e.Type == "hot_key" {
				got = append(got, e.Key)
				if !close(e.Threshold, 0.3) || !close(e.Value, 50.0/95) {
					t.Errorf("window %d: hot_key %+v; want value 50/95, threshold 0.3", i+1, e)
				}
			}
		}
		if strings.Join(got, ",") != s.want {
			t.Errorf("window %d: hot keys %q; want %q", i+1, got, s.want)
		}
	}
	many := make([]int64, 0, 1060)
	for k := range 1000 {
		many = append(many, int64(100+k))
	}
	for range 60 {
		many = append(many, 7)
	}
	wt, _ = New(Options{Designs: []string{"hash(id)"}, Sim: sim.Options{Shards: 4}})
	r, err := wt.Add(Span{Start: t0, End: t0.Add(time.Minute), Seconds: 1}, window(many, 0))
	if err != nil {
		t.Fatal(err)
	}
	hot := 0
	for _, e := range r.Events {
		if e.Type == "hot_key" {
			hot++
			if e.Key != "7" || !close(e.Threshold, 0.05) || !close(e.Value, 60.0/1060) {
				t.Errorf("many keys: %+v; want key 7 at 60/1060 over 5%%", e)
			}
		}
	}
	if hot != 1 {
		t.Errorf("many keys: %d hot_key events, want 1: %+v", hot, r.Events)
	}
}

// TestWatcher_RedisNodeFanout: Redis Cluster's 16384 slots on 3 masters
// (contiguous), as score and advise count it (sim.Candidate.FanoutPer):
// fan-out counts the nodes a request touches, since the client sends one
// request per master. Worked by hand:
//
//  1. three reads of one id each (1 node each) at 3/s and a read by
//     other (names no key: every slot, so each of the 3 nodes) at 1/s:
//     mean (3*1 + 1*3) / 4 = 1.5 nodes; p99 3 (4 instances: the smallest
//     fan-out reaching 99% of the rate, 3/4 at 1 node); the scan shape 3
//     and 3, the read shape 1 and 1;
//  2. two reads of one id each: mean 1, p99 1.
//
// Work counts nodes too (sim's work per node under redis on nodes: a
// scatter is one request per master): the scan is 3 units, window 1's
// work 3 + 3. Without
// the placement on nodes (generic engine, same slots) the scan's fan-out
// is its 16384 slots and window 1's mean (3 + 16384) / 4.
func TestWatcher_RedisNodeFanout(t *testing.T) {
	m, err := sim.NewNodes(16384, 3, "contiguous")
	if err != nil {
		t.Fatal(err)
	}
	redis, err := partition.Lookup("redis")
	if err != nil {
		t.Fatal(err)
	}
	wt, err := New(Options{Designs: []string{"hash(id)"}, Sim: sim.Options{Shards: 16384, Engine: redis}, Nodes: m})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	steps := []struct {
		w                  *shardkey.Workload
		mean, p99          float64
		shapeMean, shapeP9 []float64
		work               float64
	}{
		{window([]int64{1, 2, 3}, 1), 1.5, 3, []float64{1, 3}, []float64{1, 3}, 3 + 3},
		{window([]int64{1, 2}, 0), 1, 1, []float64{1}, []float64{1}, 2},
	}
	for i, s := range steps {
		r, err := wt.Add(Span{Start: t0.Add(time.Duration(i) * time.Minute), End: t0.Add(time.Duration(i+1) * time.Minute), Seconds: 1}, s.w)
		if err != nil {
			t.Fatal(err)
		}
		d := r.Designs[0]
		if d.FanoutPer != "node" || !near(d.FanoutMean, s.mean) || d.FanoutP99 != s.p99 || !near(float64(d.WorkPerS), s.work) {
			t.Errorf("window %d: fan-out %v p99 %v per %q, work %v; want %v, %v per node, work %v", i+1, d.FanoutMean, d.FanoutP99, d.FanoutPer, d.WorkPerS, s.mean, s.p99, s.work)
		}
		for k, sh := range d.Shapes {
			if !near(sh.FanoutMean, s.shapeMean[k]) || sh.FanoutP99 != s.shapeP9[k] {
				t.Errorf("window %d, %s: fan-out %v p99 %v; want %v, %v", i+1, sh.Name, sh.FanoutMean, sh.FanoutP99, s.shapeMean[k], s.shapeP9[k])
			}
		}
	}
	// The generic engine sends a scatter to every slot: fan-out counts
	// slots, no fanout_per.
	wt, err = New(Options{Designs: []string{"hash(id)"}, Sim: sim.Options{Shards: 16384}, Nodes: m})
	if err != nil {
		t.Fatal(err)
	}
	r, err := wt.Add(Span{Start: t0, End: t0.Add(time.Minute), Seconds: 1}, window([]int64{1, 2, 3}, 1))
	if err != nil {
		t.Fatal(err)
	}
	if d := r.Designs[0]; d.FanoutPer != "" || !near(d.FanoutMean, (3+16384)/4.0) || d.FanoutP99 != 16384 {
		t.Errorf("generic: fan-out %v p99 %v per %q; want %v, 16384 per shard", d.FanoutMean, d.FanoutP99, d.FanoutPer, (3+16384)/4.0)
	}
}

// TestWatcher_RangeBoundsFixed: a range design's boundaries are fixed
// from the first window and kept, not refitted window by window. Table
// m is append-only: window 1 inserts ts = 0..99, window 2 ts = 100..199,
// 100 inserts/s each (weight 1). On 4 shards, window 1's equal-weight
// quantiles put 25 values in each range: work 25/s a shard, ratio 1.
// Window 2's values all lie past window 1's last boundary: all 100/s on
// the last shard, work [0 0 0 100], max/mean 100/25 = 4, and a
// work_ratio event. (Refitted, window 2 would show ratio 1 again.) The
// key stays the user's text. Boundaries the user gave, bounds=[150],
// are kept: window 1 all on shard 0 (ratio 4), window 2 100..149 on
// shard 0 and 150..199 on shard 1 (50 each: ratio 50/25 = 2).
func TestWatcher_RangeBoundsFixed(t *testing.T) {
	inserts := func(from int64) *shardkey.Workload {
		tb := &shardkey.Table{Name: "m", Columns: []*shardkey.Column{{Name: "ts", Type: shardkey.Int64}}}
		op := &shardkey.Operation{Name: "insert m", Table: 0, Kind: shardkey.Insert, Rate: 100}
		for v := from; v < from+100; v++ {
			op.Instances = append(op.Instances, shardkey.Instance{Weight: 1, Conds: []shardkey.Cond{{Col: 0, Op: shardkey.Eq, Val: shardkey.IntValue(v)}}})
		}
		return &shardkey.Workload{Tables: []*shardkey.Table{tb}, Ops: []*shardkey.Operation{op}}
	}
	wt, err := New(Options{Designs: []string{"range(ts)", "range(ts, bounds=[150])"}, Sim: sim.Options{Shards: 4}})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	want := [][]struct {
		work  []float64
		ratio float64
	}{
		{{[]float64{25, 25, 25, 25}, 1}, {[]float64{100, 0, 0, 0}, 4}},
		{{[]float64{0, 0, 0, 100}, 4}, {[]float64{50, 50, 0, 0}, 2}},
	}
	for i, from := range []int64{0, 100} {
		r, err := wt.Add(Span{Start: t0.Add(time.Duration(i) * time.Minute), End: t0.Add(time.Duration(i+1) * time.Minute), Seconds: 1}, inserts(from))
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Designs) != 2 {
			t.Fatalf("window %d: %d designs, want 2", i+1, len(r.Designs))
		}
		for k, d := range r.Designs {
			wk := want[i][k]
			if d.Key != []string{"range(ts)", "range(ts, bounds=[150])"}[k] {
				t.Errorf("window %d: key %q", i+1, d.Key)
			}
			if !close(d.WorkRatio, wk.ratio) || len(d.ShardWork) != 4 {
				t.Errorf("window %d, %s: shard work %v (ratio %v), want %v (ratio %v)", i+1, d.Key, d.ShardWork, d.WorkRatio, wk.work, wk.ratio)
				continue
			}
			for s := range 4 {
				if !close(d.ShardWork[s], wk.work[s]) {
					t.Errorf("window %d, %s: shard work %v, want %v", i+1, d.Key, d.ShardWork, wk.work)
					break
				}
			}
		}
		fixed := strings.Contains(strings.Join(r.Warnings, "\n"), "design range(ts): range boundaries fixed from this window's values, bounds=[")
		if fixed != (i == 0) {
			t.Errorf("window %d: warnings %q; want the boundaries said fixed in window 1 only", i+1, r.Warnings)
		}
		ratioEvent := false
		for _, e := range r.Events {
			ratioEvent = ratioEvent || e.Type == "work_ratio" && e.Design == "range(ts)"
		}
		if ratioEvent != (i == 1) {
			t.Errorf("window %d: events %+v; want a work_ratio event for range(ts) in window 2 only", i+1, r.Events)
		}
	}
}
