package partition

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
)

func TestCitus_Grow(t *testing.T) {
	e := mustLookup(t, "citus:shard_count=32")
	l4, _ := e.Layout(4)
	l5, err := e.(Grower).Grow(l4, 5)
	if err != nil {
		t.Fatal(err)
	}
	// 32 shards on 4 nodes (8 each) rebalance to 7,7,6,6,6: the new node
	// takes 6 whole shards, 6/32 of the keyspace, and nothing else moves.
	count := make([]int, 5)
	cl := l5.(*CitusLayout)
	for s := 0; s < cl.ShardCount(); s++ {
		count[cl.node[s]]++
	}
	if count[4] != 6 {
		t.Errorf("new node holds %d shards, want 6 (counts %v)", count[4], count)
	}
	pts := randomPoints(200000, 1<<32)
	frac, toNew := moved(l4, l5, pts, 4)
	if math.Abs(frac-6.0/32) > 0.005 || !toNew {
		t.Errorf("moved %.4f (want %.4f), all to the new node: %v", frac, 6.0/32, toNew)
	}
	// One shard per node: nothing can move.
	d, _ := mustLookup(t, "citus").Layout(4)
	g, _ := mustLookup(t, "citus").(Grower).Grow(d, 5)
	if frac, _ := moved(d, g, pts, 4); frac != 0 {
		t.Errorf("default citus grow moved %.4f", frac)
	}
}

func checkCitusVectors(t *testing.T, file string) {
	e := mustLookup(t, "citus")
	checked := 0
	for i, m := range loadVectors(t, file).Vectors {
		v := vec{t, i, m}
		name := fmt.Sprintf("%d/%s/%v", i, v.opt("input_encoding"), v.m["input"])
		wantKind := "worker_hash_int32"
		if v.opt("input_encoding") == "shard layout" {
			wantKind = "shard_min_max_hash_inclusive"
		}
		if k := v.opt("output_kind"); k != wantKind {
			t.Fatalf("%s: unknown output_kind %q (want %q)", name, k, wantKind)
		}
		switch v.opt("input_encoding") {
		case "shard layout":
			in := v.m["input"].(map[string]any)
			n, idx := int(jsonInt(t, in["shard_count"])), int(jsonInt(t, in["shard_index"]))
			l, err := e.Layout(n)
			if err != nil {
				t.Fatal(err)
			}
			lo, hi := l.(*CitusLayout).HashRange(idx)
			out := v.m["output"].([]any)
			if int64(lo) != jsonInt(t, out[0]) || int64(hi) != jsonInt(t, out[1]) {
				t.Errorf("%s: range [%d, %d], want %v", name, lo, hi, out)
			}
			checked++
			continue
		case "date":
			// A DATE distribution column: PostgreSQL hashes its DateADT
			// (days since 2000-01-01) with hashint4; shardkey's date
			// (ms since the epoch or RFC 3339) is that day under the SQL
			// engines.
			d, err := shardkey.ParseValue(v.opt("input"), shardkey.Date)
			if err != nil {
				t.Fatal(err)
			}
			key := []shardkey.Value{d}
			if h, err := e.Hash(key); err != nil || h.Int != v.int64("output") {
				t.Errorf("%s: worker_hash of date %s = %v, %v; want %d", name, d, h, err, v.int64("output"))
			}
			for _, c := range perShardCount(t, v.m["shard_index"]) {
				if got := shardOf(t, e, key, int(c[0])); int64(got) != c[1] {
					t.Errorf("%s: %d shards: shard %d, want %d", name, c[0], got, c[1])
				}
			}
			checked++
			continue
		}
		var val shardkey.Value
		switch v.opt("input_encoding") {
		case "int4":
			val = shardkey.Value{Type: shardkey.Int32, Int: v.int64("input")}
		case "int8":
			val = shardkey.IntValue(v.int64("input"))
		case "text":
			val = shardkey.TextValue(v.opt("input"))
		default:
			t.Fatalf("%s: unknown encoding", name)
		}
		key := []shardkey.Value{val}
		h, err := e.Hash(key)
		if err != nil {
			t.Fatal(err)
		}
		if h.Int != v.int64("output") {
			t.Errorf("%s: worker_hash %d, want %d", name, h.Int, v.int64("output"))
		}
		for _, c := range perShardCount(t, v.m["shard_index"]) {
			if got := shardOf(t, e, key, int(c[0])); int64(got) != c[1] {
				t.Errorf("%s: %d shards: shard %d, want %d", name, c[0], got, c[1])
			}
		}
		checked++
	}
	t.Logf("%s: checked %d citus vectors", file, checked)
}

// TestCitus_SplitPoints checks split_points against intervals worked by
// hand from shard_split.c's rule (a point is the lower shard's inclusive
// maximum; the next shard starts one above it).
func TestCitus_SplitPoints(t *testing.T) {
	e := mustLookup(t, "citus(split_points=-1,1000)")
	if e.Name() != "citus(split_points=-1,1000)" {
		t.Errorf("Name() = %q", e.Name())
	}
	l, err := e.Layout(3)
	if err != nil {
		t.Fatal(err)
	}
	cl := l.(*CitusLayout)
	want := [][2]int32{{math.MinInt32, -1}, {0, 1000}, {1001, math.MaxInt32}}
	if cl.ShardCount() != 3 {
		t.Fatalf("%d shards, want 3", cl.ShardCount())
	}
	for i, w := range want {
		if lo, hi := cl.HashRange(i); lo != w[0] || hi != w[1] {
			t.Errorf("shard %d: [%d, %d], want %v", i, lo, hi, w)
		}
	}
	for h, shard := range map[int32]int{math.MinInt32: 0, -1: 0, 0: 1, 1000: 1, 1001: 2, math.MaxInt32: 2} {
		if got := cl.ShardIndex(uint64(uint32(h) ^ 0x80000000)); got != shard {
			t.Errorf("hash %d in shard %d, want %d", h, got, shard)
		}
	}
	for _, bad := range []string{"citus(split_points=5,5)", "citus(split_points=x)", "citus(split_points=2147483647)",
		"citus(split_points=1, shard_count=3)", "citus(split_points=2147483648)"} {
		if _, err := Lookup(bad); err == nil {
			t.Errorf("Lookup(%q) succeeded", bad)
		}
	}
}

// TestCitusEngine checks that pg_dist_shard's ranges give the plain
// engine when they are create_shards.c's uniform intervals (worked by
// hand: 2^32/4 = 2^30 hashes a shard; 2^32/3 = 1431655765, the last shard
// taking the remainder) and split points otherwise.
func TestCitusEngine(t *testing.T) {
	check := func(ranges [][2]int32, want string) {
		t.Helper()
		got, err := CitusEngine(ranges)
		if err != nil || got != want {
			t.Errorf("CitusEngine(%v) = %q, %v; want %q", ranges, got, err, want)
		}
	}
	check([][2]int32{{0, 1073741823}, {-2147483648, -1073741825}, {1073741824, 2147483647}, {-1073741824, -1}}, "citus")
	check([][2]int32{{-2147483648, -715827884}, {-715827883, 715827881}, {715827882, 2147483647}}, "citus")
	check([][2]int32{{math.MinInt32, math.MaxInt32}}, "citus")
	check([][2]int32{{-2147483648, -1}, {0, 1000}, {1001, 2147483647}}, "citus(split_points=-1,1000)")
	for _, bad := range [][][2]int32{
		{{-2147483648, -2}, {0, 2147483647}}, // a gap
		{{-2147483648, 5}, {0, 2147483647}},  // an overlap
		{{-2147483648, 0}},                   // short of INT32_MAX
		{{-2147483647, 2147483647}},          // not from INT32_MIN
		{},
	} {
		if got, err := CitusEngine(bad); err == nil {
			t.Errorf("CitusEngine(%v) = %q, want an error", bad, got)
		}
	}
}

// TestCitus_RealCluster checks the engine against placements a real Citus
// cluster gave (testdata/citus_real_cluster.json: Citus 12.1.12 on
// PostgreSQL 15.20, a coordinator and two workers; the file holds the
// schema and the SQL). For each value: worker_hash, the interval of the
// shard get_shard_id_for_distribution_column picked (pg_dist_shard
// shardminvalue, shardmaxvalue), its index in interval order and the
// worker pg_dist_placement puts it on, as the engine's node of 2 — for
// 32 (the default citus.shard_count), 16 and 7 shards, and for tables
// created with colocate_with.
func TestCitus_RealCluster(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "citus_real_cluster.json"))
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var f struct {
		ComputedWith string `json:"computed_with"`
		Vectors      []struct {
			Input struct {
				Table      string `json:"table"`
				ShardCount int    `json:"shard_count"`
				Value      string `json:"value"`
			} `json:"input"`
			Encoding string `json:"input_encoding"`
			Output   struct {
				WorkerHash int64 `json:"worker_hash"`
				Min        int32 `json:"shardminvalue"`
				Max        int32 `json:"shardmaxvalue"`
				ShardIndex int   `json:"shard_index"`
				NodeIndex  int   `json:"node_index"`
			} `json:"output"`
			Kind string `json:"output_kind"`
		} `json:"vectors"`
	}
	if err := dec.Decode(&f); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(f.ComputedWith, "Citus 12.1.12") || len(f.Vectors) < 300 {
		t.Fatalf("unexpected file: %q, %d vectors", f.ComputedWith, len(f.Vectors))
	}
	types := map[string]shardkey.Type{"int32": shardkey.Int32, "int64": shardkey.Int64, "text": shardkey.Text, "uuid": shardkey.UUID}
	counts := map[int]bool{}
	for i, v := range f.Vectors {
		name := fmt.Sprintf("%d/%s/%s", i, v.Input.Table, v.Input.Value)
		typ, ok := types[v.Encoding]
		if !ok || v.Kind != "citus_placement" {
			t.Fatalf("%s: unknown input_encoding %q or output_kind %q", name, v.Encoding, v.Kind)
		}
		val, err := shardkey.ParseValue(v.Input.Value, typ)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		e := mustLookup(t, fmt.Sprintf("citus(shard_count=%d)", v.Input.ShardCount))
		key := []shardkey.Value{val}
		h, err := e.Hash(key)
		if err != nil || h.Int != v.Output.WorkerHash {
			t.Errorf("%s: worker_hash %v, %v; want %d", name, h, err, v.Output.WorkerHash)
			continue
		}
		l, err := e.Layout(2)
		if err != nil {
			t.Fatal(err)
		}
		cl := l.(*CitusLayout)
		p, err := e.Point(key)
		if err != nil {
			t.Fatal(err)
		}
		idx := cl.ShardIndex(p)
		lo, hi := cl.HashRange(idx)
		if idx != v.Output.ShardIndex || lo != v.Output.Min || hi != v.Output.Max {
			t.Errorf("%s: shard %d [%d, %d], want %d [%d, %d]", name, idx, lo, hi, v.Output.ShardIndex, v.Output.Min, v.Output.Max)
		}
		if got := l.Shard(p); got != v.Output.NodeIndex || cl.Node(idx) != v.Output.NodeIndex {
			t.Errorf("%s: worker %d, want %d", name, got, v.Output.NodeIndex)
		}
		counts[v.Input.ShardCount] = true
	}
	if !counts[32] || !counts[16] || !counts[7] {
		t.Errorf("shard counts covered: %v", counts)
	}
}
