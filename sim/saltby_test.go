package sim

import (
	"math"
	"testing"

	"github.com/shardkey/shardkey"
)

// TestSaltBy: salt(hash(ws), 3, top=1, by=page) puts the whale tenant's
// rows in 3 buckets by the hash of page: a read of (ws, page) asks one
// shard, a read of ws alone asks the 3, a page's inserts in one
// transaction (the same new page) land together, two new pages together
// with probability 1/3. Plain salt spreads the same reads over 3 and
// splits the page's inserts 2 times in 3.
func TestSaltBy(t *testing.T) {
	const k, n = 3, 8
	tb := &shardkey.Table{Name: "pages", Rows: 900}
	ws := &shardkey.Column{Name: "ws", Type: shardkey.Int64}
	page := &shardkey.Column{Name: "page", Type: shardkey.Int64}
	for i := 0; i < tb.Rows; i++ {
		ws.Ints = append(ws.Ints, 1) // one tenant: the whale
		page.Ints = append(page.Ints, int64(i))
	}
	tb.Columns = []*shardkey.Column{ws, page}
	eq := func(col int, v int64) shardkey.Cond {
		return shardkey.Cond{Col: col, Op: shardkey.Eq, Val: shardkey.IntValue(v)}
	}
	fresh := func(v int32) shardkey.Cond {
		return shardkey.Cond{Col: 1, Op: shardkey.Eq, Fresh: shardkey.FreshUnique, FreshVar: v}
	}
	score := func(key string, conds []shardkey.Cond, txn []shardkey.Stmt) *Candidate {
		t.Helper()
		op := &shardkey.Operation{Name: "read", Kind: shardkey.Read, Rate: 1, Instances: []shardkey.Instance{{Weight: 1, Conds: conds}}}
		w := &shardkey.Workload{Tables: []*shardkey.Table{tb}, Ops: []*shardkey.Operation{op}, Shards: n,
			Txns: []shardkey.Txn{{Weight: 1, Stmts: txn}}}
		c, err := Score(w, key, Options{Shards: n})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	onePage := []shardkey.Stmt{{Kind: shardkey.Insert, Conds: []shardkey.Cond{eq(0, 1), fresh(1)}}, {Kind: shardkey.Insert, Conds: []shardkey.Cond{eq(0, 1), fresh(1)}}}
	twoPages := []shardkey.Stmt{{Kind: shardkey.Insert, Conds: []shardkey.Cond{eq(0, 1), fresh(1)}}, {Kind: shardkey.Insert, Conds: []shardkey.Cond{eq(0, 1), fresh(2)}}}
	const by = "salt(hash(ws), 3, top=1, by=page)"
	const split = "isolate(hash(ws), top=1, split=page, over=3)"
	for _, c := range []struct {
		key     string
		conds   []shardkey.Cond
		txn     []shardkey.Stmt
		fan     float64
		crossTx float64
	}{
		{by, []shardkey.Cond{eq(0, 1), eq(1, 7)}, onePage, 1, 0},
		{by, []shardkey.Cond{eq(0, 1)}, twoPages, k, 1 - 1.0/k},
		{by, []shardkey.Cond{eq(0, 1), {Col: 1, Op: shardkey.In, List: []shardkey.Value{shardkey.IntValue(7), shardkey.IntValue(7)}}}, onePage, 1, 0},
		{"salt(hash(ws), 3, top=1)", []shardkey.Cond{eq(0, 1), eq(1, 7)}, onePage, k, 1 - 1.0/k},
		{split, []shardkey.Cond{eq(0, 1), eq(1, 7)}, onePage, 1, 0},
		{split, []shardkey.Cond{eq(0, 1)}, twoPages, k, 1 - 1.0/k},
	} {
		got := score(c.key, c.conds, c.txn)
		if got.FanoutMean != c.fan || math.Abs(got.CrossShardTxnFraction-c.crossTx) > 1e-12 {
			t.Errorf("%s, read %v: fan-out %v, cross-shard %v; want %v and %v", c.key, c.conds, got.FanoutMean, got.CrossShardTxnFraction, c.fan, c.crossTx)
		}
	}
	// The rows: 900 pages on 3 consecutive shards, each bucket near 300
	// (binomial(900, 1/3): sd 14; 250..350 is 3.5 sd), nothing elsewhere.
	got := score(by, []shardkey.Cond{eq(0, 1)}, onePage)
	var used []int
	sum := 0.0
	for sh, l := range got.ShardLoad {
		if l > 0 {
			used = append(used, sh)
			sum += l
			if l < 250 || l > 350 {
				t.Errorf("shard %d holds %v rows; want 250..350 of 900 over 3 buckets", sh, l)
			}
		}
	}
	if len(used) != k || sum != 900 {
		t.Errorf("rows on shards %v (%v rows); want %d shards holding 900", used, sum, k)
	}
	// explain names the split column for the hot value, nothing for a cold one.
	d, _ := shardkey.ParseDesign(split)
	sc, err := Compile(&shardkey.Workload{Tables: []*shardkey.Table{tb}, Shards: n}, d, Options{Shards: n})
	if err != nil {
		t.Fatal(err)
	}
	hot, err := sc.Explain(0, shardkey.Read, []shardkey.Cond{eq(0, 1), eq(1, 7)})
	if err != nil || len(hot.Shards) != 1 || hot.Shards[0] < n-k || !contains(hot.Reason, "a split hot value: page picks 1 of its 3 shards") {
		t.Errorf("explain (ws, page) of the whale: %+v, %v; want one of shards 5..7, said", hot, err)
	}
	cold, err := sc.Explain(0, shardkey.Read, []shardkey.Cond{eq(0, 2), eq(1, 7)})
	if err != nil || len(cold.Shards) != 1 || cold.Shards[0] >= n-k || contains(cold.Reason, "split hot value") {
		t.Errorf("explain (ws, page) of a cold value: %+v, %v; want one of shards 0..4, no word of splitting", cold, err)
	}
	// isolate split: the same 3 buckets on the 3 dedicated shards, the
	// last ones (5, 6, 7 of 8), the same pages in each.
	iso := score(split, []shardkey.Cond{eq(0, 1)}, onePage)
	for sh := range n {
		want := 0.0
		if sh >= n-k {
			want = got.ShardLoad[used[0]+sh-(n-k)]
		}
		if iso.ShardLoad[sh] != want {
			t.Errorf("%s: shard %d holds %v rows; want %v", split, sh, iso.ShardLoad[sh], want)
		}
	}
}

// TestSaltByErrors: by= names a column of the table and salts a hash key.
func TestSaltByErrors(t *testing.T) {
	tb := &shardkey.Table{Name: "t", Rows: 2, Columns: []*shardkey.Column{{Name: "ws", Type: shardkey.Int64, Ints: []int64{1, 2}}, {Name: "page", Type: shardkey.Int64, Ints: []int64{1, 2}}}}
	w := &shardkey.Workload{Tables: []*shardkey.Table{tb}, Shards: 4}
	for key, want := range map[string]string{
		"salt(hash(ws), 2, top=1, by=pg)":               `salt by=pg: no column "pg"`,
		"salt(range(ws), 2, top=1, by=page)":            `salt by=page: only over a hash key`,
		"isolate(hash(ws), top=1, split=pg, over=2)":    `isolate split=pg: no column "pg"`,
		"isolate(hash(ws), top=2, split=page, over=2)":  `needs more than 4 shards, have 4`,
		"isolate(range(ws), top=1, split=page, over=2)": `split=page: only over a hash key`,
	} {
		if _, err := Score(w, key, Options{Shards: 4}); err == nil || !contains(err.Error(), want) {
			t.Errorf("Score(%s) = %v; want an error containing %q", key, err, want)
		}
	}
}

// TestSplitOvers: isolate(hash(ws), top=2, split=page, over=[4, 2]) on 10
// shards gives the heaviest tenant (600 rows) the 4 shards 4..7 and the
// next (300 rows) the 2 shards 8..9, the rest (10 tenants of 10 rows)
// hashing over the 4 shards 0..3 that remain: each value's own count,
// consecutive after the base shards in order of weight, as the design
// documents. A read of a tenant alone asks its own 4 or 2 shards; a read
// with its page one. A single count for both would need 8 shards for 2.
func TestSplitOvers(t *testing.T) {
	const n = 10
	tb := &shardkey.Table{Name: "pages"}
	ws := &shardkey.Column{Name: "ws", Type: shardkey.Int64}
	page := &shardkey.Column{Name: "page", Type: shardkey.Int64}
	add := func(tenant int64, rows int) {
		for range rows {
			ws.Ints = append(ws.Ints, tenant)
			page.Ints = append(page.Ints, int64(len(page.Ints)))
		}
	}
	add(1, 600)
	add(2, 300)
	add(3, 20)
	for tenant := int64(4); tenant <= 12; tenant++ {
		add(tenant, 10)
	}
	tb.Rows = len(ws.Ints)
	tb.Columns = []*shardkey.Column{ws, page}
	eq := func(col int, v int64) shardkey.Cond {
		return shardkey.Cond{Col: col, Op: shardkey.Eq, Val: shardkey.IntValue(v)}
	}
	const key = "isolate(hash(ws), top=2, split=page, over=[4, 2])"
	score := func(conds []shardkey.Cond) *Candidate {
		t.Helper()
		op := &shardkey.Operation{Name: "read", Kind: shardkey.Read, Rate: 1, Instances: []shardkey.Instance{{Weight: 1, Conds: conds}}}
		w := &shardkey.Workload{Tables: []*shardkey.Table{tb}, Ops: []*shardkey.Operation{op}, Shards: n}
		c, err := Score(w, key, Options{Shards: n})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	for _, c := range []struct {
		conds []shardkey.Cond
		fan   float64
	}{
		{[]shardkey.Cond{eq(0, 1)}, 4},
		{[]shardkey.Cond{eq(0, 2)}, 2},
		{[]shardkey.Cond{eq(0, 1), eq(1, 7)}, 1},
		{[]shardkey.Cond{eq(0, 2), eq(1, 700)}, 1},
		{[]shardkey.Cond{eq(0, 5)}, 1},
	} {
		if got := score(c.conds).FanoutMean; got != c.fan {
			t.Errorf("read %v: fan-out %v; want %v", c.conds, got, c.fan)
		}
	}
	load := score([]shardkey.Cond{eq(0, 1)}).ShardLoad
	sum := func(lo, hi int) (s float64) {
		for sh := lo; sh <= hi; sh++ {
			s += load[sh]
		}
		return s
	}
	if a, b, c := sum(0, 3), sum(4, 7), sum(8, 9); a != 110 || b != 600 || c != 300 {
		t.Errorf("rows on shards 0-3, 4-7, 8-9: %v, %v, %v; want 110, 600, 300", a, b, c)
	}
	// Each of the whale's 4 shards near 150 (binomial(600, 1/4): sd 10.6;
	// 110..190 is 3.8 sd), each of the next tenant's 2 near 150
	// (binomial(300, 1/2): sd 8.7; 3.8 sd is 117..183).
	for sh := 4; sh <= 9; sh++ {
		if load[sh] < 110 || load[sh] > 190 {
			t.Errorf("shard %d holds %v rows; want about 150", sh, load[sh])
		}
	}
	// An entry of 1 isolates the third tenant (20 rows) on shard 9 alone:
	// 4 + 2 + 1 dedicated shards, the tail's 90 rows on shards 0..2.
	op := &shardkey.Operation{Name: "read", Kind: shardkey.Read, Rate: 1, Instances: []shardkey.Instance{{Weight: 1, Conds: []shardkey.Cond{eq(0, 3)}}}}
	c3, err := Score(&shardkey.Workload{Tables: []*shardkey.Table{tb}, Ops: []*shardkey.Operation{op}, Shards: n}, "isolate(hash(ws), top=3, split=page, over=[4, 2, 1])", Options{Shards: n})
	if err != nil {
		t.Fatal(err)
	}
	load = c3.ShardLoad
	if a, b, c, d := sum(0, 2), sum(3, 6), sum(7, 8), sum(9, 9); a != 90 || b != 600 || c != 300 || d != 20 || c3.FanoutMean != 1 {
		t.Errorf("over=[4, 2, 1]: rows on shards 0-2, 3-6, 7-8, 9: %v, %v, %v, %v, tenant 3 read fan-out %v; want 90, 600, 300, 20 and 1", a, b, c, d, c3.FanoutMean)
	}
	// explain names each value's own count.
	d, _ := shardkey.ParseDesign(key)
	sc, err := Compile(&shardkey.Workload{Tables: []*shardkey.Table{tb}, Shards: n}, d, Options{Shards: n})
	if err != nil {
		t.Fatal(err)
	}
	for tenant, want := range map[int64]string{1: "picks 1 of its 4 shards", 2: "picks 1 of its 2 shards"} {
		rt, err := sc.Explain(0, shardkey.Read, []shardkey.Cond{eq(0, tenant), eq(1, 7)})
		if err != nil || !contains(rt.Reason, want) {
			t.Errorf("explain tenant %d with its page: %+v, %v; want %q", tenant, rt, err, want)
		}
	}
	// 4 + 2 dedicated shards need more than 6.
	w := &shardkey.Workload{Tables: []*shardkey.Table{tb}, Shards: 6}
	if _, err := Score(w, key, Options{Shards: 6}); err == nil || !contains(err.Error(), "over 6 shards in all needs more than 6 shards, have 6") {
		t.Errorf("Score on 6 shards: %v; want the shards-in-all error", err)
	}
}

// TestSplitCountsColocated: two tables that split the same key's values
// over different counts would hash the other values over different base
// shards (over=[2, 2] leaves 10 - 4 = 6 of 10, over=[3, 3] leaves 4), so a
// cold tenant's rows would sit on different shards in each table: an
// error naming both tables; the same counts are accepted.
func TestSplitCountsColocated(t *testing.T) {
	mk := func(name, second string) *shardkey.Table {
		tb := &shardkey.Table{Name: name, Rows: 4}
		ws := &shardkey.Column{Name: "ws", Type: shardkey.Int64, Ints: []int64{1, 1, 2, 3}}
		x := &shardkey.Column{Name: second, Type: shardkey.Int64, Ints: []int64{1, 2, 3, 4}}
		tb.Columns = []*shardkey.Column{ws, x}
		return tb
	}
	w := &shardkey.Workload{Tables: []*shardkey.Table{mk("pages", "page"), mk("members", "user")}, Shards: 10}
	_, err := Score(w, "isolate(hash(ws), top=2, split=page, over=[2, 2]); members:isolate(hash(ws), top=2, split=user, over=[3, 3])", Options{Shards: 10})
	if err == nil || !contains(err.Error(), "tables pages and members split the values of hash(ws) over different shard counts") {
		t.Errorf("different counts: %v; want the co-location error", err)
	}
	if _, err := Score(w, "isolate(hash(ws), top=2, split=page, over=[3, 2]); members:isolate(hash(ws), top=2, split=user, over=[3, 2])", Options{Shards: 10}); err != nil {
		t.Errorf("the same counts: %v", err)
	}
}

// TestSplitUnsplitWarned: one table splitting a key's hot values over
// dedicated shards (over=[2, 2] on 10 shards: the others hash over 6)
// and another hashing the same key over all 10 place a cold value on
// different shards: a warning naming both tables; the same split in
// both, none.
func TestSplitUnsplitWarned(t *testing.T) {
	mk := func(name, second string) *shardkey.Table {
		return &shardkey.Table{Name: name, Rows: 4, Columns: []*shardkey.Column{
			{Name: "ws", Type: shardkey.Int64, Ints: []int64{1, 1, 2, 3}},
			{Name: second, Type: shardkey.Int64, Ints: []int64{1, 2, 3, 4}}}}
	}
	w := &shardkey.Workload{Tables: []*shardkey.Table{mk("pages", "page"), mk("members", "user")}, Shards: 10}
	warned := func(key string) bool {
		t.Helper()
		d, err := shardkey.ParseDesign(key)
		if err != nil {
			t.Fatal(err)
		}
		sc, err := Compile(w, d, Options{Shards: 10})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range sc.Warnings {
			if contains(e.Error(), "table pages splits the hot values of hash(ws) over dedicated shards (isolate split=) and table members does not") {
				return true
			}
		}
		return false
	}
	if !warned("isolate(hash(ws), top=2, split=page, over=[2, 2]); members:hash(ws)") {
		t.Error("split pages, hashed members: no co-location warning")
	}
	if !warned("isolate(hash(ws), top=2, split=page, over=[2, 2]); members:isolate(hash(ws), top=2)") {
		t.Error("split pages, isolated members: no co-location warning")
	}
	if warned("isolate(hash(ws), top=2, split=page, over=[2, 2]); members:isolate(hash(ws), top=2, split=user, over=[2, 2])") {
		t.Error("the same split in both: warned")
	}
}
