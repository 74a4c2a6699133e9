package sim

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/partition"
)

// Under Vitess's numeric vindex the keyspace id is the value's 8 bytes
// (go/vt/vtgate/vindexes/numeric.go) and 8 shards are the key ranges -20,
// 20-40, ..., e0-: value v is on shard v>>61. So sh(k)+x is a value on
// shard k, placed by hand.
func sh(k int64) int64 { return k << 61 }

// lookupWorkload: users(user_id, phone, city) with four rows, one per
// shard of user_id under vitess-numeric:
//
//	row  user_id     shard  phone       lookup shard  city        lookup shard
//	A    0           0      sh(1)+5     1             7           0
//	B    sh(1)       1      sh(2)       2             7           0
//	C    sh(2)       2      sh(3)       3             sh(2)       2
//	D    sh(3)+7     3      sh(3)+1     3             sh(3)       3
func lookupWorkload(t *testing.T) *shardkey.Workload {
	t.Helper()
	tb := &shardkey.Table{Name: "users", Rows: 4, Columns: []*shardkey.Column{
		{Name: "user_id", Type: shardkey.Int64, Ints: []int64{0, sh(1), sh(2), sh(3) + 7}},
		{Name: "phone", Type: shardkey.Int64, Ints: []int64{sh(1) + 5, sh(2), sh(3), sh(3) + 1}},
		{Name: "city", Type: shardkey.Int64, Ints: []int64{7, 7, sh(2), sh(3)}},
	}}
	i64 := func(v int64) shardkey.Value { return shardkey.Value{Type: shardkey.Int64, Int: v} }
	eq := func(c int, v int64) shardkey.Cond { return shardkey.Cond{Col: c, Op: shardkey.Eq, Val: i64(v)} }
	insA := []shardkey.Cond{eq(0, 0), eq(1, sh(1)+5), eq(2, 7)}
	insD := []shardkey.Cond{eq(0, sh(3)+7), eq(1, sh(3)+1), eq(2, sh(3))}
	w := &shardkey.Workload{Tables: []*shardkey.Table{tb},
		Ops: []*shardkey.Operation{
			{Name: "by_phone", Table: 0, Kind: shardkey.Read, Rate: 10, Instances: []shardkey.Instance{{Weight: 1, Conds: []shardkey.Cond{eq(1, sh(1)+5)}}}},
			{Name: "by_city", Table: 0, Kind: shardkey.Read, Rate: 4, Instances: []shardkey.Instance{{Weight: 1, Conds: []shardkey.Cond{eq(2, 7)}}}},
			{Name: "insert", Table: 0, Kind: shardkey.Insert, Rate: 8, Instances: []shardkey.Instance{{Weight: 1, Conds: insA}, {Weight: 1, Conds: insD}}},
			{Name: "by_phone_unseen", Table: 0, Kind: shardkey.Read, Rate: 2, Instances: []shardkey.Instance{{Weight: 1, Conds: []shardkey.Cond{eq(1, 12345)}}}},
		},
		Txns: []shardkey.Txn{
			{Weight: 1, Stmts: []shardkey.Stmt{{Table: 0, Kind: shardkey.Insert, Conds: insA}}},
			{Weight: 1, Stmts: []shardkey.Stmt{{Table: 0, Kind: shardkey.Insert, Conds: insD}}},
		}}
	if err := w.Validate(); err != nil {
		t.Fatal(err)
	}
	return w
}

func scoreLookup(t *testing.T, w *shardkey.Workload, design string) (*Candidate, *Scheme) {
	t.Helper()
	eng, err := partition.Lookup("vitess-numeric")
	if err != nil {
		t.Fatal(err)
	}
	d, err := shardkey.ParseDesign(design)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Compile(w, d, Options{Shards: 8, Engine: eng})
	if err != nil {
		t.Fatal(err)
	}
	p, err := Run(w, s, 2)
	if err != nil {
		t.Fatal(err)
	}
	return s.Report(p), s
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// TestLookupScore checks a design with a unique and a non-unique lookup
// against the figures worked by hand from the table above.
func TestLookupScore(t *testing.T) {
	w := lookupWorkload(t)
	c, _ := scoreLookup(t, w, "users:hash(user_id), lookup(phone), lookup(city, nonunique)")
	op := map[string]OpScore{}
	for _, o := range c.Operations {
		op[o.Name] = o
	}
	check := func(what string, got, want float64) {
		t.Helper()
		if !near(got, want) {
			t.Errorf("%s = %v; want %v", what, got, want)
		}
	}
	// by_phone: lookup phone on shard 1, then A's shard 0: fan-out 1,
	// 10/s x (1 + 1 hop).
	check("by_phone fanout", op["by_phone"].FanoutMean, 1)
	check("by_phone work", op["by_phone"].WorkPerS, 20)
	check("by_phone lookup work", op["by_phone"].LookupWorkPerS, 10)
	check("by_phone scatter", op["by_phone"].ScatterFraction, 0)
	// by_city: city 7 is A's and B's: lookup on shard 0 (7>>62), then
	// shards 0 and 1: 4/s x (2 + 1).
	check("by_city fanout", op["by_city"].FanoutMean, 2)
	check("by_city work", op["by_city"].WorkPerS, 12)
	// insert: each row writes two lookup rows: 8/s x 3 units.
	check("insert fanout", op["insert"].FanoutMean, 1)
	check("insert work", op["insert"].WorkPerS, 24)
	check("insert lookup work", op["insert"].LookupWorkPerS, 16)
	// by_phone_unseen: 12345 is on lookup shard 0; the row it names is
	// not in the sample: one shard at random. 2/s x 2.
	check("unseen fanout", op["by_phone_unseen"].FanoutMean, 1)
	check("unseen work", op["by_phone_unseen"].WorkPerS, 4)
	check("work_per_s", c.WorkPerS, 60)
	// Shard 0: by_phone's row 10, by_city's hop 4 and row 4, A's insert
	// 4 + its city lookup row 4, the unseen read's hop 2, its row 2/8.
	// Shard 1: by_phone's hop 10, by_city's row 4, A's phone lookup row
	// 4, 0.25. Shard 3: D's row and both lookup rows 12, 0.25. The
	// others: 0.25.
	want := []float64{28.25, 18.25, 0.25, 12.25, 0.25, 0.25, 0.25, 0.25}
	for i, x := range want {
		check("shard_work["+string(rune('0'+i))+"]", c.ShardWork[i], x)
	}
	// Transactions: A's insert has its row on 0 and lookup rows on 1 and
	// 0: cross-shard, because of the phone lookup; D's are all on 3.
	check("cross_shard_txn_fraction", c.CrossShardTxnFraction, 0.5)
	if c.LookupCrossShardTxnFraction == nil {
		t.Fatal("lookup_cross_shard_txn_fraction missing")
	}
	check("lookup_cross_shard_txn_fraction", *c.LookupCrossShardTxnFraction, 0.5)
	if len(c.Lookups) != 2 {
		t.Fatalf("lookups = %+v; want 2", c.Lookups)
	}
	ph, ct := c.Lookups[0], c.Lookups[1]
	if ph.Column != "phone" || ph.Vindex != "lookup_unique" || ct.Column != "city" || ct.Vindex != "lookup" {
		t.Errorf("lookups = %+v", c.Lookups)
	}
	// phone: reads 10 + 2 (one hop each), writes 8 (one row each), half
	// of them (A's) off their row's shard; city: A's lookup row is on
	// A's shard 0, D's on D's shard 3.
	check("phone reads", ph.ReadsPerS, 12)
	check("phone read work", ph.ReadWorkPerS, 12)
	check("phone writes", ph.WritesPerS, 8)
	check("phone write work", ph.WriteWorkPerS, 8)
	check("phone cross writes", ph.CrossShardWriteFraction, 0.5)
	check("city reads", ct.ReadsPerS, 4)
	check("city cross writes", ct.CrossShardWriteFraction, 0)

	// Without the lookups the reads scatter: 10x8 + 4x8 + 8 + 2x8.
	base, _ := scoreLookup(t, w, "users:hash(user_id)")
	check("no lookup work", base.WorkPerS, 136)
	check("no lookup cross", base.CrossShardTxnFraction, 0)
	if base.Lookups != nil || base.LookupCrossShardTxnFraction != nil {
		t.Errorf("a design without lookups reports %+v, %v", base.Lookups, base.LookupCrossShardTxnFraction)
	}

	// A consistent lookup writes its row in a session of its own: the
	// work is the same, the transaction stays on one shard.
	cons, _ := scoreLookup(t, w, "users:hash(user_id), lookup(phone, consistent), lookup(city, nonunique)")
	check("consistent work", cons.WorkPerS, 60)
	check("consistent cross", cons.CrossShardTxnFraction, 0)
	check("consistent lookup cross", *cons.LookupCrossShardTxnFraction, 0)
}

// TestLookupCross checks the closed forms of lookupCross.
func TestLookupCross(t *testing.T) {
	lk := &lookupKey{}
	check := func(tc touch, lt lkTouch, want float64) {
		t.Helper()
		lt.lk = lk
		if got := lookupCross(&tc, &lt, 4); !near(got, want) {
			t.Errorf("lookupCross(%+v, shards %v uni %d) = %v; want %v", tc, lt.shards, lt.uni, got, want)
		}
	}
	check(touch{kind: tOne, one: 2}, lkTouch{shards: []int{2}}, 0)
	check(touch{kind: tOne, one: 2}, lkTouch{shards: []int{1}}, 1)
	check(touch{kind: tOne, one: 2}, lkTouch{uni: 1}, 0.75)       // 1 - 1/4
	check(touch{kind: tUniform}, lkTouch{shards: []int{1}}, 0.75) // the row lands on 1 w.p. 1/4
	check(touch{kind: tUniform}, lkTouch{uni: 1}, 0.75)           // two independent draws differ w.p. 3/4
	check(touch{kind: tUniform}, lkTouch{shards: []int{1, 2}}, 1) // two lookup shards
	check(touch{kind: tUniformOf, set: []int{0, 1}}, lkTouch{shards: []int{1}}, 0.5)
	check(touch{kind: tUniformOf, set: []int{0, 1}}, lkTouch{shards: []int{3}}, 1)
	check(touch{kind: tSet, set: []int{0, 1}}, lkTouch{uni: 2}, 1-0.25) // each draw in {0,1} w.p. 1/2
}

// TestLookupExplain: explain names the hop and the lookup row.
func TestLookupExplain(t *testing.T) {
	w := lookupWorkload(t)
	_, s := scoreLookup(t, w, "users:hash(user_id), lookup(phone), lookup(city, nonunique)")
	i64 := func(v int64) shardkey.Value { return shardkey.Value{Type: shardkey.Int64, Int: v} }
	rt, err := s.Explain(0, shardkey.Read, []shardkey.Cond{{Col: 1, Op: shardkey.Eq, Val: i64(sh(1) + 5)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rt.Shards) != 1 || rt.Shards[0] != 0 || len(rt.LookupShards) != 1 || rt.LookupShards[0] != 1 || rt.Scatter {
		t.Errorf("read by phone: shards %v lookup %v scatter %v; want [0] [1] false", rt.Shards, rt.LookupShards, rt.Scatter)
	}
	if !strings.Contains(rt.Reason, "lookup phone -> keyspace id on shard 1") || !strings.Contains(rt.Reason, "then shard 0") {
		t.Errorf("reason = %q", rt.Reason)
	}
	rt, err = s.Explain(0, shardkey.Read, []shardkey.Cond{{Col: 2, Op: shardkey.Eq, Val: i64(7)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rt.Shards) != 2 || rt.Shards[0] != 0 || rt.Shards[1] != 1 || !strings.Contains(rt.Reason, "non-unique lookup names every matching row") {
		t.Errorf("read by city: shards %v reason %q", rt.Shards, rt.Reason)
	}
	rt, err = s.Explain(0, shardkey.Insert, []shardkey.Cond{{Col: 0, Op: shardkey.Eq, Val: i64(0)}, {Col: 1, Op: shardkey.Eq, Val: i64(sh(1) + 5)}, {Col: 2, Op: shardkey.Eq, Val: i64(7)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rt.Shards) != 1 || rt.Shards[0] != 0 || len(rt.LookupShards) != 2 || rt.LookupShards[0] != 0 || rt.LookupShards[1] != 1 {
		t.Errorf("insert: shards %v lookup %v; want [0] [0 1]", rt.Shards, rt.LookupShards)
	}
	if !strings.Contains(rt.Reason, "inserts the lookup row phone -> keyspace id on shard 1") {
		t.Errorf("insert reason = %q", rt.Reason)
	}
}

// TestLookupNonUniqueUnseen: a value the sample lacks counts on as many
// shards as the sample's values are on, on average (city: 7 on 2 shards,
// two others on 1: 4/3, rounded to 1). Without rows a non-unique lookup
// still routes the read, as vtgate routes by a non-unique vindex (opcode
// Equal, "routing a query using a non-unique vindex",
// go/vt/vtgate/engine/routing.go): the lookup table's shard of 7 (shard 0
// under vitess-numeric, 7>>61), one unit a request at rate 4, then the
// rows' shards, unknown: route multi with no shard named, counted at the
// bound, all 8, without being a scatter; with a warning.
func TestLookupNonUniqueUnseen(t *testing.T) {
	w := lookupWorkload(t)
	_, s := scoreLookup(t, w, "users:hash(user_id), lookup(city, nonunique)")
	rt, err := s.Explain(0, shardkey.Read, []shardkey.Cond{{Col: 2, Op: shardkey.Eq, Val: shardkey.Value{Type: shardkey.Int64, Int: 999}}})
	if err != nil {
		t.Fatal(err)
	}
	if rt.Scatter || rt.Route != "" && rt.Route != RouteSingle || !strings.Contains(rt.Reason, "as many shards as the sample's values do on average, 1 here") {
		t.Errorf("unseen city: %+v", rt)
	}
	empty := lookupWorkload(t)
	tb := *empty.Tables[0]
	tb.Rows = 0
	tb.Columns = []*shardkey.Column{{Name: "user_id", Type: shardkey.Int64}, {Name: "phone", Type: shardkey.Int64}, {Name: "city", Type: shardkey.Int64}}
	empty.Tables = []*shardkey.Table{&tb}
	c, es := scoreLookup(t, empty, "users:hash(user_id), lookup(city, nonunique)")
	found := false
	for _, o := range c.Operations {
		if o.Name == "by_city" {
			found = true
			if o.FanoutMean != 8 || o.ScatterFraction != 0 || !near(o.LookupWorkPerS, 4) {
				t.Errorf("by_city without rows: fan-out %v, scatter %v, lookup work %v; want 8 (the bound), 0, 4", o.FanoutMean, o.ScatterFraction, o.LookupWorkPerS)
			}
		}
	}
	if !found {
		t.Error("no operation by_city")
	}
	rt, err = es.Explain(0, shardkey.Read, []shardkey.Cond{{Col: 2, Op: shardkey.Eq, Val: shardkey.Value{Type: shardkey.Int64, Int: 7}}})
	if err != nil {
		t.Fatal(err)
	}
	rt.Route = routeKind(rt, 8)
	if rt.Scatter || rt.Route != RouteMulti || len(rt.Shards) != 0 || len(rt.LookupShards) != 1 || rt.LookupShards[0] != 0 || !strings.Contains(rt.Reason, "without a row sample how many is unknown") {
		t.Errorf("city = 7 without rows: %+v; want route multi, no shard named, lookup shard 0", rt)
	}
	if !strings.Contains(strings.Join(c.Warnings, "\n"), "no row sample, so how many shards the rows of one city are on is unknown") {
		t.Errorf("warnings %q lack the non-unique lookup's", c.Warnings)
	}
}

// TestLookupBareUnknownColumn: a bare expression's lookup(col) that no
// table the expression places has is an error naming the column and the
// tables (it used to be dropped: the bare key scored, no warning); one
// that some placed table has compiles.
func TestLookupBareUnknownColumn(t *testing.T) {
	w := lookupWorkload(t)
	eng, err := partition.Lookup("vitess-numeric")
	if err != nil {
		t.Fatal(err)
	}
	d, err := shardkey.ParseDesign("hash(user_id), lookup(nosuch)")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Compile(w, d, Options{Shards: 8, Engine: eng})
	if err == nil || !strings.Contains(err.Error(), `"nosuch"`) || !strings.Contains(err.Error(), "tables it places: users") {
		t.Errorf("lookup(nosuch): error %v, want one naming \"nosuch\" and the tables (users)", err)
	}
	d, err = shardkey.ParseDesign("hash(user_id), lookup(phone)")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Compile(w, d, Options{Shards: 8, Engine: eng}); err != nil {
		t.Errorf("lookup(phone): %v", err)
	}
}

// updateLookupWorkload: lookupWorkload's table, updated. The design
// users:hash(user_id), lookup(phone) under vitess-numeric (8 shards) puts
// value v on shard v>>61, the table's rows and the lookup table's alike.
//
//	op             rate  WHERE                 SET                 row  lookup hop  old row  new row
//	upd_key        6     user_id = 0 (A)       phone = sh(3)+2     0    -           random   3
//	upd_by_phone   4     phone = sh(1)+5 (A)   phone = sh(2)+1     0    1           1        2
//	upd_other      2     user_id = 0           city = 9            0    -           -        -
//	upd_same       1     phone = sh(1)+5       phone = sh(1)+5     0    1           -        -
//
// upd_same assigns the value the row holds: Vitess's lookup Update then
// writes nothing (consistent_lookup.go compares the values; the planner
// cannot know it in general, but here the WHERE says it).
func updateLookupWorkload(t *testing.T) *shardkey.Workload {
	t.Helper()
	w := lookupWorkload(t)
	i64 := func(v int64) shardkey.Value { return shardkey.Value{Type: shardkey.Int64, Int: v} }
	eq := func(c int, v int64) []shardkey.Cond { return []shardkey.Cond{{Col: c, Op: shardkey.Eq, Val: i64(v)}} }
	up := func(name string, rate float64, where, set []shardkey.Cond) *shardkey.Operation {
		return &shardkey.Operation{Name: name, Table: 0, Kind: shardkey.Update, Rate: rate, Instances: []shardkey.Instance{{Weight: 1, Conds: where, Sets: set}}}
	}
	w.Ops = []*shardkey.Operation{
		up("upd_key", 6, eq(0, 0), eq(1, sh(3)+2)),
		up("upd_by_phone", 4, eq(1, sh(1)+5), eq(1, sh(2)+1)),
		up("upd_other", 2, eq(0, 0), eq(2, 9)),
		up("upd_same", 1, eq(1, sh(1)+5), eq(1, sh(1)+5)),
	}
	// T1 (weight 1): A's row on 0, its new lookup row on 3: cross-shard.
	// T2 (weight 1): D's row on 3 (sh(3)+7), new lookup row sh(3)+9 on 3,
	// the old one on a shard at random: cross-shard with probability 7/8.
	// T3 (weight 2): no lookup column assigned: one shard.
	w.Txns = []shardkey.Txn{
		{Weight: 1, Stmts: []shardkey.Stmt{{Table: 0, Kind: shardkey.Update, Conds: eq(0, 0), Sets: eq(1, sh(3)+2)}}},
		{Weight: 1, Stmts: []shardkey.Stmt{{Table: 0, Kind: shardkey.Update, Conds: eq(0, sh(3)+7), Sets: eq(1, sh(3)+9)}}},
		{Weight: 2, Stmts: []shardkey.Stmt{{Table: 0, Kind: shardkey.Update, Conds: eq(0, 0), Sets: eq(2, 9)}}},
	}
	return w
}

// TestLookupUpdateScore: an UPDATE that assigns an owned lookup's column
// deletes the old value's lookup row and inserts the new one's
// (lookupInternal.Update, go/vt/vtgate/vindexes/lookup_internal.go), in
// the transaction (lookup_unique) or in sessions of their own
// (consistent_lookup), after reading the rows' vindex columns with a
// SELECT ... FOR UPDATE on the update's shards (Update.updateVindexEntries,
// go/vt/vtgate/engine/update.go: planned whenever the SET names an owned
// vindex column, even when the value does not change); figures worked by
// hand from updateLookupWorkload.
func TestLookupUpdateScore(t *testing.T) {
	w := updateLookupWorkload(t)
	c, _ := scoreLookup(t, w, "users:hash(user_id), lookup(phone)")
	op := map[string]OpScore{}
	for _, o := range c.Operations {
		op[o.Name] = o
	}
	check := func(what string, got, want float64) {
		t.Helper()
		if !near(got, want) {
			t.Errorf("%s = %v; want %v", what, got, want)
		}
	}
	// upd_key: row, its FOR UPDATE read, old and new lookup rows: 6/s x 4.
	check("upd_key work", op["upd_key"].WorkPerS, 24)
	check("upd_key lookup work", op["upd_key"].LookupWorkPerS, 12)
	check("upd_key fanout", op["upd_key"].FanoutMean, 1)
	// upd_by_phone: lookup hop, row, FOR UPDATE read, old and new rows:
	// 4/s x 5.
	check("upd_by_phone work", op["upd_by_phone"].WorkPerS, 20)
	check("upd_by_phone lookup work", op["upd_by_phone"].LookupWorkPerS, 12)
	check("upd_other work", op["upd_other"].WorkPerS, 2)
	check("upd_other lookup work", op["upd_other"].LookupWorkPerS, 0)
	// upd_same: the hop, the row and the FOR UPDATE read (the lookup
	// rows are left alone: the value does not change).
	check("upd_same work", op["upd_same"].WorkPerS, 3)
	check("work_per_s", c.WorkPerS, 49)
	// Shard 0: rows 6 + 4 + 2 + 1 and the FOR UPDATE reads 6 + 4 + 1;
	// shard 1: hops 4 + 1 and the old row 4;
	// shard 2: the new row 4; shard 3: the new row 6; upd_key's old row
	// 6/s spread over 8 shards: 0.75 each.
	want := []float64{24.75, 9.75, 4.75, 6.75, 0.75, 0.75, 0.75, 0.75}
	for i, x := range want {
		check("shard_work["+string(rune('0'+i))+"]", c.ShardWork[i], x)
	}
	ph := c.Lookups[0]
	check("phone reads", ph.ReadsPerS, 5)
	check("phone writes", ph.WritesPerS, 20)
	check("phone write work", ph.WriteWorkPerS, 20)
	check("phone update writes", ph.UpdateWritesPerS, 20)
	// Off the row's shard 0: upd_key's old row with probability 7/8
	// (5.25/s), its new row (6), both of upd_by_phone's (8): 19.25 of 20.
	check("phone cross writes", ph.CrossShardWriteFraction, 19.25/20)
	// (1 + 7/8) of weight 4.
	check("cross_shard_txn_fraction", c.CrossShardTxnFraction, 1.875/4)
	if c.LookupCrossShardTxnFraction == nil {
		t.Fatal("lookup_cross_shard_txn_fraction missing")
	}
	check("lookup_cross_shard_txn_fraction", *c.LookupCrossShardTxnFraction, 1.875/4)

	// A consistent lookup writes the same rows (the same work) in
	// sessions committed before and after the transaction: no
	// transaction crosses shards.
	cc, _ := scoreLookup(t, w, "users:hash(user_id), lookup(phone, consistent)")
	check("consistent work_per_s", cc.WorkPerS, 49)
	check("consistent cross_shard_txn_fraction", cc.CrossShardTxnFraction, 0)

	// Without the lookup no lookup row is written, and the reads by
	// phone scatter: 6 + 4 x 8 + 2 + 1 x 8.
	cn, _ := scoreLookup(t, w, "users:hash(user_id)")
	check("no lookup work_per_s", cn.WorkPerS, 48)
	check("no lookup cross_shard_txn_fraction", cn.CrossShardTxnFraction, 0)
}

// TestLookupBeatsKeyIN: vtgate routes by the vindex option of least cost,
// opcode first (PickBestAvailableVindex and less,
// go/vt/vtgate/planbuilder/operators/sharded_routing.go; the opcodes'
// order EqualUnique < Equal < IN < Scatter, go/vt/vtgate/engine/routing.go),
// so a key bound by an IN list yields to a lookup bound to one value:
// planbuilder testdata filter_cases.json, "Route with multiple route
// constraints, SelectEqual is the best constraint": "select id from user
// where user.col = false and user.id in (1, 2) and user.name = 'aa'" is a
// VindexLookup, Variant Equal, Vindex name_user_map (a non-unique lookup),
// whose first input reads the lookup table ("select `name`, keyspace_id
// from name_user_vdx where `name` in ::__vals", a Route by the values)
// and whose second is the user route ByDestination. A key bound to one
// value keeps its route ("... SelectEqualUnique is the best constraint":
// user.id = 1 with user.name = 'aa' is Route EqualUnique user_index); an
// IN on both keeps the key's (same opcode: the unique, cheaper hash,
// cost 1, before lookup_unique, 10). Shards from lookupWorkload's table,
// by hand.
func TestLookupBeatsKeyIN(t *testing.T) {
	w := lookupWorkload(t)
	_, s := scoreLookup(t, w, "users:hash(user_id), lookup(phone), lookup(city, nonunique)")
	i64 := func(v int64) shardkey.Value { return shardkey.Value{Type: shardkey.Int64, Int: v} }
	eq := func(c int, v int64) shardkey.Cond { return shardkey.Cond{Col: c, Op: shardkey.Eq, Val: i64(v)} }
	in := func(c int, vs ...int64) shardkey.Cond {
		cd := shardkey.Cond{Col: c, Op: shardkey.In}
		for _, v := range vs {
			cd.List = append(cd.List, i64(v))
		}
		return cd
	}
	for _, tc := range []struct {
		name          string
		conds         []shardkey.Cond
		shards, looks []int
		route, reason string
	}{
		// user_id IN (A, B, C) AND phone = B's: EqualUnique on the
		// lookup beats IN: phone sh(2) on lookup shard 2, then B's 1.
		{"in+unique", []shardkey.Cond{in(0, 0, sh(1), sh(2)), eq(1, sh(2))}, []int{1}, []int{2}, RouteSingle, "(opcode EqualUnique), which vtgate routes by instead"},
		// user_id IN (A, D) AND city = 7 (non-unique): Equal beats IN:
		// city 7 on lookup shard 0, then A's and B's shards 0, 1.
		{"in+nonunique", []shardkey.Cond{in(0, 0, sh(3)+7), eq(2, 7)}, []int{0, 1}, []int{0}, RouteMulti, "(opcode Equal), which vtgate routes by instead"},
		// user_id = A AND phone = B's: the key's EqualUnique (hash, cost
		// 1) beats the lookup's (cost 10): shard 0, no lookup read.
		{"eq+unique", []shardkey.Cond{eq(0, 0), eq(1, sh(2))}, []int{0}, nil, RouteSingle, "binds every column of the key"},
		// user_id IN (A, B) AND phone IN (C's, D's): both IN, the key's
		// hash is unique and cheaper: shards 0, 1.
		{"in+in", []shardkey.Cond{in(0, 0, sh(1)), in(1, sh(3), sh(3)+1)}, []int{0, 1}, nil, RouteMulti, "routes by the key"},
		// No key condition; phone IN (A's, B's) (unique, IN) AND city =
		// D's (non-unique, Equal): Equal beats IN: city sh(3) on
		// lookup shard 3, then D's shard 3.
		{"lookups", []shardkey.Cond{in(1, sh(1)+5, sh(2)), eq(2, sh(3))}, []int{3}, []int{3}, RouteSingle, "binds lookup(city, nonunique)"},
	} {
		rt, err := s.Explain(0, shardkey.Read, tc.conds)
		if err != nil {
			t.Fatal(err)
		}
		route := s.routeKind(rt)
		if !slices.Equal(rt.Shards, tc.shards) || len(rt.LookupShards)+len(tc.looks) > 0 && !slices.Equal(rt.LookupShards, tc.looks) || route != tc.route || !strings.Contains(rt.Reason, tc.reason) {
			t.Errorf("%s: shards %v lookup %v route %s reason %q; want %v %v %s, reason with %q", tc.name, rt.Shards, rt.LookupShards, route, rt.Reason, tc.shards, tc.looks, tc.route, tc.reason)
		}
	}

	// Scored: one request at 10/s, the lookup read (one unit on lookup
	// shard 2) and B's row on shard 1: fan-out 1, 20 units/s; by the
	// key's IN it was 3 shards, 30 units/s.
	w.Ops = append(w.Ops, &shardkey.Operation{Name: "in_and_phone", Table: 0, Kind: shardkey.Read, Rate: 10,
		Instances: []shardkey.Instance{{Weight: 1, Conds: []shardkey.Cond{in(0, 0, sh(1), sh(2)), eq(1, sh(2))}}}})
	c, _ := scoreLookup(t, w, "users:hash(user_id), lookup(phone), lookup(city, nonunique)")
	for _, o := range c.Operations {
		if o.Name != "in_and_phone" {
			continue
		}
		if !near(o.FanoutMean, 1) || !near(o.WorkPerS, 20) || !near(o.LookupWorkPerS, 10) || !near(o.RequestsPerS, 10) {
			t.Errorf("in_and_phone: fanout %v work %v lookup work %v requests %v; want 1 20 10 10", o.FanoutMean, o.WorkPerS, o.LookupWorkPerS, o.RequestsPerS)
		}
	}
}

// TestLookupMergedJoinIsOneRequest: SELECT ... FROM users u JOIN orders o
// ON o.user_id = u.id WHERE u.phone = ?, under users:hash(id),
// lookup(phone); orders:hash(user_id). vtgate routes users by the lookup
// and, the joined columns being under one unique vindex, merges the join
// into that route (tryMergeShardedRouting, operators/sharded_routing.go;
// canMergeOnFilter, route_planning.go): one query. The orders read rides
// in it: its rows' work and fan-out count (shard 2, user sh(2)'s, under
// vitess-numeric v>>61), its request does not. By hand, at 4/s: users 4
// requests, 4 x (lookup shard 3 + row shard 2) = 8 units; orders 0
// requests (4/s merged), 4 units, fan-out 1; the design 4 requests/s,
// all single-shard.
func TestLookupMergedJoinIsOneRequest(t *testing.T) {
	i64 := func(v int64) shardkey.Value { return shardkey.Value{Type: shardkey.Int64, Int: v} }
	phone := []shardkey.Cond{{Col: 1, Op: shardkey.Eq, Val: i64(sh(3))}}
	w := &shardkey.Workload{Tables: []*shardkey.Table{
		{Name: "users", Rows: 2, Columns: []*shardkey.Column{
			{Name: "id", Type: shardkey.Int64, Ints: []int64{0, sh(2)}},
			{Name: "phone", Type: shardkey.Int64, Ints: []int64{sh(1) + 5, sh(3)}}}},
		{Name: "orders", Rows: 2, Columns: []*shardkey.Column{
			{Name: "order_id", Type: shardkey.Int64, Ints: []int64{sh(5), sh(6)}},
			{Name: "user_id", Type: shardkey.Int64, Ints: []int64{0, sh(2)}}}},
	}, Ops: []*shardkey.Operation{
		{Name: "users by phone", Table: 0, Kind: shardkey.Read, Rate: 4, Instances: []shardkey.Instance{{Weight: 1, Conds: phone}}},
		{Name: "orders joined", Table: 1, Kind: shardkey.Read, Rate: 4, Instances: []shardkey.Instance{{Weight: 1,
			Peers: []shardkey.Peer{{Col: 1, Table: 0, OtherCol: 0, Conds: phone}}}}},
	}}
	if err := w.Validate(); err != nil {
		t.Fatal(err)
	}
	c, _ := scoreLookup(t, w, "users:hash(id), lookup(phone); orders:hash(user_id)")
	check := func(what string, got, want float64) {
		t.Helper()
		if !near(got, want) {
			t.Errorf("%s = %v; want %v", what, got, want)
		}
	}
	u, o := c.Operations[0], c.Operations[1]
	check("users requests", u.RequestsPerS, 4)
	check("users work", u.WorkPerS, 8)
	check("orders requests", o.RequestsPerS, 0)
	check("orders merged", o.MergedPerS, 4)
	check("orders work", o.WorkPerS, 4)
	check("orders fanout", o.FanoutMean, 1)
	check("orders single-shard", o.SingleShardFraction, 1)
	check("requests_per_s", c.RequestsPerS, 4)
	check("single_shard_fraction", c.SingleShardFraction, 1)
	check("shard 2 work", c.ShardWork[2], 8)
	check("shard 3 work", c.ShardWork[3], 4)
}
