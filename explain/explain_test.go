package explain_test

import (
	"testing"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/explain"
	"github.com/shardkey/shardkey/partition"
	"github.com/shardkey/shardkey/sim"
	"github.com/shardkey/shardkey/sqllog"
)

// TestStatement: the library entry point on a statement alone. An IN list
// of three user ids under hash(user_id) on 8 shards asks the shards of those
// three values (generic: xxhash64 of the int64's 8 bytes mod 8, as the
// partition package computes), route multi; a statement with no condition
// on the key scatters; a key on a column no table has is a *KeyError.
func TestStatement(t *testing.T) {
	eng, err := partition.Lookup("generic")
	if err != nil {
		t.Fatal(err)
	}
	o := explain.Options{Sim: sim.Options{Shards: 8, Engine: eng}}
	design, err := shardkey.ParseDesign("hash(user_id)")
	if err != nil {
		t.Fatal(err)
	}
	run := func(sql string) (sim.Route, error) {
		st, err := sqllog.ParseStatement(sql, sqllog.Postgres)
		if err != nil {
			t.Fatal(err)
		}
		rt, _, err := explain.Statement(st, &shardkey.Workload{Shards: 8}, design, o)
		return rt, err
	}
	want := map[int]bool{}
	for _, id := range []int64{1, 2, 3} {
		p, err := partition.Generic{}.Point([]shardkey.Value{shardkey.IntValue(id)})
		if err != nil {
			t.Fatal(err)
		}
		want[int(p%8)] = true
	}
	rt, err := run("SELECT * FROM posts WHERE user_id IN (1, 2, 3)")
	if err != nil || rt.Scatter || len(rt.Shards) != len(want) {
		t.Fatalf("IN (1, 2, 3): %+v, %v; want the shards %v", rt, err, want)
	}
	for _, s := range rt.Shards {
		if !want[s] {
			t.Errorf("IN (1, 2, 3): shard %d, not one of %v", s, want)
		}
	}
	if rt, err := run("SELECT * FROM posts WHERE body = 'x'"); err != nil || !rt.Scatter || rt.Route != sim.RouteScatter {
		t.Errorf("no key condition: %+v, %v; want scatter", rt, err)
	}
	bad, _ := shardkey.ParseDesign("users:hash(nope)")
	st, _ := sqllog.ParseStatement("SELECT * FROM posts WHERE user_id = 1", sqllog.Postgres)
	_, _, err = explain.Statement(st, &shardkey.Workload{Shards: 8}, bad, explain.Options{Sim: o.Sim, Inputs: true})
	if _, ok := err.(*explain.KeyError); !ok {
		t.Errorf("a key on no table's column: %v; want a *KeyError", err)
	}
}
