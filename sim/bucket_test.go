package sim

import (
	"fmt"
	"math"
	"testing"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/partition"
)

// TestCassandraBuckets: under Cassandra, salt(hash(a), [4, 2], top=2)
// is the partition key (a, bucket): value 1 (600 rows) over 4 buckets,
// value 2 (300 rows) over 2, every other value in bucket 0. Each bucket
// is the partition (a, b), placed by the Murmur3 token of the composite
// key (bigint, int) as the engine places it (checked against Cassandra's
// vectors in package partition), not on consecutive nodes; a value not
// bucketed is placed by (a, 0), not by a alone. The expected per-node rows
// are computed here from the engine: value 1's rows a quarter on each of
// its buckets' nodes, value 2's a half, each other value's one row on
// (v, 0)'s node. A read of value 1 asks its buckets' distinct nodes.
func TestCassandraBuckets(t *testing.T) {
	const n = 16
	tb := &shardkey.Table{Name: "events"}
	a := &shardkey.Column{Name: "a", Type: shardkey.Int64}
	add := func(v int64, rows int) {
		for range rows {
			a.Ints = append(a.Ints, v)
		}
	}
	add(1, 600)
	add(2, 300)
	for v := int64(10); v < 110; v++ {
		add(v, 1)
	}
	tb.Columns, tb.Rows = []*shardkey.Column{a}, len(a.Ints)
	read := &shardkey.Operation{Name: "read", Kind: shardkey.Read, Rate: 1,
		Instances: []shardkey.Instance{{Weight: 1, Conds: []shardkey.Cond{{Col: 0, Op: shardkey.Eq, Val: shardkey.IntValue(1)}}}}}
	w := &shardkey.Workload{Tables: []*shardkey.Table{tb}, Ops: []*shardkey.Operation{read}, Shards: n}
	got, err := Score(w, "salt(hash(a), [4, 2], top=2)", Options{Shards: n, Engine: partition.Cassandra{}})
	if err != nil {
		t.Fatal(err)
	}
	eng := partition.Cassandra{}
	l, err := eng.Layout(n)
	if err != nil {
		t.Fatal(err)
	}
	node := func(v int64, b int) int {
		p, err := eng.Point([]shardkey.Value{shardkey.IntValue(v), {Type: shardkey.Int32, Int: int64(b)}})
		if err != nil {
			t.Fatal(err)
		}
		return l.Shard(p)
	}
	want := make([]float64, n)
	nodes1 := map[int]bool{}
	for b := range 4 {
		want[node(1, b)] += 600.0 / 4
		nodes1[node(1, b)] = true
	}
	for b := range 2 {
		want[node(2, b)] += 300.0 / 2
	}
	for v := int64(10); v < 110; v++ {
		want[node(v, 0)]++
	}
	for sh := range want {
		if math.Abs(got.ShardLoad[sh]-want[sh]) > 1e-9 {
			t.Errorf("node %d holds %v rows; want %v (composite tokens)", sh, got.ShardLoad[sh], want[sh])
		}
	}
	if got.FanoutMean != float64(len(nodes1)) {
		t.Errorf("a read of value 1 asks %v nodes; want its 4 buckets' %d distinct nodes", got.FanoutMean, len(nodes1))
	}
}

// TestSaltPerValue: salt(hash(a), [3, 1], top=2) under the default
// engine: value 1's rows over 3 consecutive shards (a third on each, a
// read of it asks 3), value 2's on its home alone (one bucket: a read
// asks 1), as salt(hash(a), 3, top=1) places value 1; explain says a
// read of value 1 asks its 3 buckets, not the largest count's.
func TestSaltPerValue(t *testing.T) {
	const n = 8
	tb := &shardkey.Table{Name: "events"}
	a := &shardkey.Column{Name: "a", Type: shardkey.Int64}
	for range 300 {
		a.Ints = append(a.Ints, 1)
	}
	for range 200 {
		a.Ints = append(a.Ints, 2)
	}
	tb.Columns, tb.Rows = []*shardkey.Column{a}, len(a.Ints)
	for _, c := range []struct {
		v   int64
		fan float64
	}{{1, 3}, {2, 1}} {
		read := &shardkey.Operation{Name: "read", Kind: shardkey.Read, Rate: 1,
			Instances: []shardkey.Instance{{Weight: 1, Conds: []shardkey.Cond{{Col: 0, Op: shardkey.Eq, Val: shardkey.IntValue(c.v)}}}}}
		w := &shardkey.Workload{Tables: []*shardkey.Table{tb}, Ops: []*shardkey.Operation{read}, Shards: n}
		got, err := Score(w, "salt(hash(a), [3, 1], top=2)", Options{Shards: n})
		if err != nil {
			t.Fatal(err)
		}
		if got.FanoutMean != c.fan {
			t.Errorf("a read of value %d asks %v shards; want %v", c.v, got.FanoutMean, c.fan)
		}
		// explain names the value's own count.
		d, _ := shardkey.ParseDesign("salt(hash(a), [3, 1], top=2)")
		sc, err := Compile(w, d, Options{Shards: n})
		if err != nil {
			t.Fatal(err)
		}
		rt, err := sc.Explain(0, shardkey.Read, read.Instances[0].Conds)
		if want := fmt.Sprintf("read from all %d of its buckets", int(c.fan)); err != nil || !contains(rt.Reason, want) {
			t.Errorf("explain a = %d: %q, %v; want %q", c.v, rt.Reason, err, want)
		}
		hashed, err := Score(w, "hash(a)", Options{Shards: n})
		if err != nil {
			t.Fatal(err)
		}
		home1, home2 := -1, -1
		for sh, x := range hashed.ShardLoad {
			switch x {
			case 300:
				home1 = sh
			case 200:
				home2 = sh
			case 500:
				home1, home2 = sh, sh
			}
		}
		want := make([]float64, n)
		for b := range 3 {
			want[(home1+b)%n] += 100
		}
		want[home2] += 200
		for sh := range want {
			if math.Abs(got.ShardLoad[sh]-want[sh]) > 1e-6 {
				t.Errorf("shard %d holds %v rows; want %v", sh, got.ShardLoad[sh], want[sh])
			}
		}
	}
}
