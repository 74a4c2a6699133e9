package sim

import (
	"crypto/md5"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/partition"
)

// mongoHashString and mongoHashInt are MongoDB's hashed values of a string
// and of an integer, written from the algorithm text of
// partition/testdata/vectors/mongodb_hashed.json, not from the engine:
// the first 8 bytes, little-endian, of MD5(seed 0 as int32 LE, canonical
// type as int32 LE, the value: a string as int32 LE length with its NUL,
// bytes, NUL (type 15); a number as int64 LE (type 10)).
func mongoHashString(s string) int64 {
	b := binary.LittleEndian.AppendUint32(nil, 0)
	b = binary.LittleEndian.AppendUint32(b, 15)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(s)+1))
	b = append(append(b, s...), 0)
	sum := md5.Sum(b)
	return int64(binary.LittleEndian.Uint64(sum[:8]))
}

func mongoHashInt(v int64) int64 {
	b := binary.LittleEndian.AppendUint32(nil, 0)
	b = binary.LittleEndian.AppendUint32(b, 10)
	b = binary.LittleEndian.AppendUint64(b, uint64(v))
	sum := md5.Sum(b)
	return int64(binary.LittleEndian.Uint64(sum[:8]))
}

// mongoOrders is one collection of 8 documents: user 1 has _id a..f,
// user 2 has g and h; one read by user, by user and _id, by _id alone.
func mongoOrders() *shardkey.Workload {
	tb := &shardkey.Table{Name: "orders"}
	user := &shardkey.Column{Name: "user_id", Type: shardkey.Int64}
	id := &shardkey.Column{Name: "_id", Type: shardkey.Text}
	for i, s := range strings.Split("abcdefgh", "") {
		u := int64(1)
		if i >= 6 {
			u = 2
		}
		user.Ints = append(user.Ints, u)
		id.Strs = append(id.Strs, s)
		tb.Weights = append(tb.Weights, 1)
		tb.Rows++
	}
	tb.Columns = []*shardkey.Column{user, id}
	return &shardkey.Workload{Tables: []*shardkey.Table{tb}, Shards: 4}
}

// TestMongoCompoundHashed: {user_id: 1, _id: "hashed"} orders documents by
// (user_id, hash(_id)) and cuts that order into 4 equal chunks, one per
// shard; mongos targets an equality on user_id to the chunks its range
// [{user_id: v, _id: MinKey}, {user_id: v, _id: MaxKey}] meets, on both
// fields to one chunk, and scatters an equality on _id alone. The expected
// chunks are worked here: user 1's six documents sorted by their hashed
// _id (mongoHashString) fill shards 0, 1, 2 two by two; user 2's two are
// shard 3.
func TestMongoCompoundHashed(t *testing.T) {
	w := mongoOrders()
	ids := strings.Split("abcdef", "")
	sort.Slice(ids, func(i, j int) bool { return mongoHashString(ids[i]) < mongoHashString(ids[j]) })
	want := map[string]int{"g": 3, "h": 3}
	for rank, s := range ids {
		want[s] = rank / 2
	}
	if slices.Equal(ids, strings.Split("abcdef", "")) {
		t.Fatal("the hashed order is the lexical one: the test would not tell them apart")
	}
	key := `{user_id: 1, _id: "hashed"}`
	s, err := Compile(w, mustDesign(t, key), Options{Shards: 4, Engine: partition.MongoDB{}})
	if err != nil {
		t.Fatal(err)
	}
	c, err := Score(w, key, Options{Shards: 4, Engine: partition.MongoDB{}})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(c.ShardLoad) != "[2 2 2 2]" {
		t.Errorf("shard loads %v; want 2 documents a chunk", c.ShardLoad)
	}
	eq := func(col int, v shardkey.Value) shardkey.Cond { return shardkey.Cond{Col: col, Op: shardkey.Eq, Val: v} }
	route := func(conds ...shardkey.Cond) []int {
		t.Helper()
		rt, err := s.Explain(0, shardkey.Read, conds)
		if err != nil {
			t.Fatal(err)
		}
		return rt.Shards
	}
	for s, sh := range want {
		u := int64(1)
		if s >= "g" {
			u = 2
		}
		if got := route(eq(0, shardkey.IntValue(u)), eq(1, shardkey.TextValue(s))); fmt.Sprint(got) != fmt.Sprint([]int{sh}) {
			t.Errorf("user_id = %d and _id = %s: shards %v; want [%d]", u, s, got, sh)
		}
	}
	if got := route(eq(0, shardkey.IntValue(1))); fmt.Sprint(got) != "[0 1 2]" {
		t.Errorf("user_id = 1: shards %v; want its chunks [0 1 2]", got)
	}
	// The split point before user 2 is user 2's first document, {user_id:
	// 2, _id: <its hash>}, so chunk 2, [{1, ...}, {2, <hash>}), holds
	// the user_id 2 documents hashing below it (none here, but any new
	// one): mongos asks chunks 2 and 3 for user_id = 2.
	if got := route(eq(0, shardkey.IntValue(2))); fmt.Sprint(got) != "[2 3]" {
		t.Errorf("user_id = 2: shards %v; want [2 3]", got)
	}
	if got := route(eq(1, shardkey.TextValue("a"))); fmt.Sprint(got) != "[0 1 2 3]" {
		t.Errorf("_id = a alone: shards %v; want scatter", got)
	}
	rng := shardkey.Cond{Col: 1, Op: shardkey.Range, Bounds: &shardkey.Bounds{Lo: shardkey.TextValue("a"), HasLo: true, LoIncl: true, Hi: shardkey.TextValue("b"), HasHi: true}}
	if got := route(eq(0, shardkey.IntValue(1)), rng); fmt.Sprint(got) != "[0 1 2]" {
		t.Errorf("user_id = 1 and a <= _id < b: shards %v; want user 1's chunks [0 1 2] (a hashed field has no ranges)", got)
	}
	in := shardkey.Cond{Col: 1, Op: shardkey.In, List: []shardkey.Value{shardkey.TextValue(ids[0]), shardkey.TextValue(ids[5])}}
	if got := route(eq(0, shardkey.IntValue(1)), in); fmt.Sprint(got) != "[0 2]" {
		t.Errorf("user_id = 1 and _id IN (%s, %s): shards %v; want [0 2]", ids[0], ids[5], got)
	}
}

// TestMongoHashedPrefix: {_id: "hashed", user_id: 1} places as MongoDB's
// initial chunks of a hashed prefix, the even split of the hash space
// (calculateHashedSplitPoints for 4 chunks: -interval, 0, +interval with
// interval = (INT64_MAX / 4) * 2), whatever user_id; an equality on _id is
// one shard, on user_id alone scatter.
func TestMongoHashedPrefix(t *testing.T) {
	w := mongoOrders()
	interval := (int64(math.MaxInt64) / 4) * 2
	want := make([]float64, 4)
	chunk := map[string]int{}
	for _, s := range strings.Split("abcdefgh", "") {
		h, c := mongoHashString(s), 0
		for _, sp := range []int64{-interval, 0, interval} {
			if sp <= h {
				c++
			}
		}
		want[c]++
		chunk[s] = c
	}
	key := `{_id: "hashed", user_id: 1}`
	c, err := Score(w, key, Options{Shards: 4, Engine: partition.MongoDB{}})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(c.ShardLoad) != fmt.Sprint(want) {
		t.Errorf("shard loads %v; want %v", c.ShardLoad, want)
	}
	s, err := Compile(w, mustDesign(t, key), Options{Shards: 4, Engine: partition.MongoDB{}})
	if err != nil {
		t.Fatal(err)
	}
	rt, _ := s.Explain(0, shardkey.Read, []shardkey.Cond{{Col: 1, Op: shardkey.Eq, Val: shardkey.TextValue("e")}})
	if fmt.Sprint(rt.Shards) != fmt.Sprint([]int{chunk["e"]}) {
		t.Errorf("_id = e: shards %v; want [%d]", rt.Shards, chunk["e"])
	}
	rt, _ = s.Explain(0, shardkey.Read, []shardkey.Cond{{Col: 0, Op: shardkey.Eq, Val: shardkey.IntValue(1)}})
	if !rt.Scatter {
		t.Errorf("user_id = 1 alone: %v; want scatter", rt)
	}
	// The single-field {user_id: "hashed"} is MongoDB's hashed sharding.
	c, err = Score(w, `{user_id: "hashed"}`, Options{Shards: 4, Engine: partition.MongoDB{}})
	if err != nil {
		t.Fatal(err)
	}
	want = make([]float64, 4)
	for u, n := range map[int64]float64{1: 6, 2: 2} {
		h, c := mongoHashInt(u), 0
		for _, sp := range []int64{-interval, 0, interval} {
			if sp <= h {
				c++
			}
		}
		want[c] += n
	}
	if fmt.Sprint(c.ShardLoad) != fmt.Sprint(want) {
		t.Errorf("{user_id: \"hashed\"}: shard loads %v; want %v", c.ShardLoad, want)
	}
}

func TestMongoPatternErrors(t *testing.T) {
	w := mongoOrders()
	for _, c := range []struct {
		key  string
		eng  partition.Engine
		want string
	}{
		{`{user_id: 1, _id: "hashed"}`, partition.Generic{}, "only --engine mongodb"},
		{`isolate({user_id: 1, _id: "hashed"})`, partition.MongoDB{}, "not supported"},
		{`range({_id: "hashed", user_id: 1}, bounds=[5])`, partition.MongoDB{}, "even split of the hash space"},
	} {
		_, err := Compile(w, mustDesign(t, c.key), Options{Shards: 4, Engine: c.eng})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s under %s: error %v; want %q", c.key, c.eng.Name(), err, c.want)
		}
	}
	// Without a hashed field a pattern is a range key on any engine.
	c, err := Score(w, `{user_id: 1, _id: 1}`, Options{Shards: 4})
	if err != nil || fmt.Sprint(c.ShardLoad) != "[2 2 2 2]" {
		t.Errorf("{user_id: 1, _id: 1}: %v, %v; want 2 documents a chunk", c, err)
	}
}

func mustDesign(t *testing.T, s string) *shardkey.Design {
	t.Helper()
	d, err := shardkey.ParseDesign(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestMongoHashedFreshTxn: a transaction writing one new _id into two
// collections keyed {user_id: 1, _id: "hashed"} puts both in the chunk of
// that _id's hash, whichever it is: never cross-shard. Two different new
// ids of user 1 each land in one of user 1's 3 chunks (its 6 documents a
// collection fill chunks 0..2 of 4), independently: cross-shard with
// probability 1 - 1/3.
func TestMongoHashedFreshTxn(t *testing.T) {
	w := mongoOrders()
	lines := *w.Tables[0]
	lines.Name = "lines"
	w.Tables = append(w.Tables, &lines)
	ins := func(table int, v int32) shardkey.Stmt {
		return shardkey.Stmt{Table: table, Kind: shardkey.Insert, Conds: []shardkey.Cond{
			{Col: 0, Op: shardkey.Eq, Val: shardkey.IntValue(1)},
			{Col: 1, Op: shardkey.Eq, Fresh: shardkey.FreshUnique, FreshVar: v},
		}}
	}
	key := `{user_id: 1, _id: "hashed"}`
	for _, c := range []struct {
		stmts []shardkey.Stmt
		want  float64
	}{
		{[]shardkey.Stmt{ins(0, 1), ins(1, 1)}, 0},
		{[]shardkey.Stmt{ins(0, 1), ins(1, 2)}, 2.0 / 3},
	} {
		w.Txns = []shardkey.Txn{{Weight: 1, Stmts: c.stmts}}
		cand, err := Score(w, key, Options{Shards: 4, Engine: partition.MongoDB{}})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(cand.CrossShardTxnFraction-c.want) > 1e-9 {
			t.Errorf("fresh vars %d, %d: cross-shard %v; want %v", c.stmts[0].Conds[1].FreshVar, c.stmts[1].Conds[1].FreshVar, cand.CrossShardTxnFraction, c.want)
		}
	}
}

// TestMongoHashedAloneFixes: {user_id: "hashed"} alone is MongoDB's hashed
// sharding of user_id, hash(user_id) under partition.MongoDB, so isolate
// and salt over it (the whale fixes advise proposes in MongoDB's notation)
// place and route exactly as over hash(user_id).
func TestMongoHashedAloneFixes(t *testing.T) {
	w := mongoOrders()
	for _, f := range []string{"isolate(%s, top=1)", "salt(%s, 2, top=1)"} {
		a, err := Score(w, fmt.Sprintf(f, `{user_id: "hashed"}`), Options{Shards: 4, Engine: partition.MongoDB{}})
		if err != nil {
			t.Fatalf("%s: %v", fmt.Sprintf(f, `{user_id: "hashed"}`), err)
		}
		b, err := Score(w, fmt.Sprintf(f, "hash(user_id)"), Options{Shards: 4, Engine: partition.MongoDB{}})
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(a.ShardLoad, a.ShardWork) != fmt.Sprint(b.ShardLoad, b.ShardWork) {
			t.Errorf("%s: load, work %v %v; over hash(user_id) %v %v", f, a.ShardLoad, a.ShardWork, b.ShardLoad, b.ShardWork)
		}
	}
}
