package report

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/internal/numfmt"
	"github.com/shardkey/shardkey/partition"
	"github.com/shardkey/shardkey/sim"
)

// TestScore_CitusHashRanges scores one table on 4 Citus shards and checks
// the intervals each format shows against create_shards.c's formula
// worked by hand (2^32/4 = 2^30 hashes a shard), beside the shard's work
// and load.
func TestScore_CitusHashRanges(t *testing.T) {
	w := &shardkey.Workload{Name: "t", Shards: 4, Tables: []*shardkey.Table{{Name: "users",
		Columns: []*shardkey.Column{{Name: "id", Type: shardkey.Int32}}}}}
	for i := range 40 {
		v, _ := shardkey.ParseValue(strconv.Itoa(i), shardkey.Int32)
		if err := w.Tables[0].Columns[0].Append(v); err != nil {
			t.Fatal(err)
		}
		w.Tables[0].Rows++
	}
	eng, _ := partition.Lookup("citus")
	c, err := sim.Score(w, "hash(id)", sim.Options{Shards: 4, Engine: eng})
	if err != nil {
		t.Fatal(err)
	}
	want := [][][2]int32{{{-2147483648, -1073741825}}, {{-1073741824, -1}}, {{0, 1073741823}}, {{1073741824, 2147483647}}}
	js, _ := json.Marshal(c.ShardHashRanges)
	wjs, _ := json.Marshal(want)
	if string(js) != string(wjs) {
		t.Fatalf("shard_hash_ranges %s, want %s", js, wjs)
	}
	r := NewScore(w, "citus", []*sim.Candidate{c})
	var tab, md strings.Builder
	if err := r.WriteTable(&tab); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	for s, x := range want {
		rng := HashRangesText(x)
		load := c.ShardLoad[s]
		if !strings.Contains(md.String(), fmt.Sprintf("| %d | %s | 0 | %s |", s, rng, numfmt.Num(load))) {
			t.Errorf("markdown lacks shard %d's row %s (load %v):\n%s", s, rng, load, md.String())
		}
		if !strings.Contains(tab.String(), rng) {
			t.Errorf("table lacks %s", rng)
		}
	}
	// Without Citus, no intervals anywhere.
	c2, err := sim.Score(w, "hash(id)", sim.Options{Shards: 4})
	if err != nil {
		t.Fatal(err)
	}
	if c2.ShardHashRanges != nil {
		t.Errorf("generic engine: shard_hash_ranges %v", c2.ShardHashRanges)
	}
}

// TestRangeRows: up to 16 shards are all listed; past that the 10 busiest,
// in shard order.
func TestRangeRows(t *testing.T) {
	c := &sim.Candidate{}
	for i := range 20 {
		c.ShardHashRanges = append(c.ShardHashRanges, [][2]int32{{int32(i), int32(i)}})
		c.ShardWork = append(c.ShardWork, float64((i*7)%20)) // a permutation of 0..19
		c.ShardLoad = append(c.ShardLoad, 0)
	}
	rows, more := rangeRows(c)
	// The 10 busiest have work 10..19: shards i with (7i mod 20) >= 10.
	var want []int
	for i := range 20 {
		if (i*7)%20 >= 10 {
			want = append(want, i)
		}
	}
	if more != 10 || !slices.Equal(rows, want) {
		t.Errorf("rows %v (%d more), want %v (10 more)", rows, more, want)
	}
	if HashRangesText(nil) != "none (isolated values)" || HashRangesText([][2]int32{{1, 2}, {5, 9}}) != "1..2, 5..9" {
		t.Errorf("HashRangesText")
	}
}
