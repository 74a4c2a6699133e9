package sim

import (
	"testing"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/partition"
)

// TestReshardSamePlacementSpelledOtherwise: under --engine vitess,
// hash(id) and hash(id, vindex=hash) are one primary vindex (the hash
// vindex over the same keyspace-id ranges): a reshard between them
// rewrites no table, sampled (t, rows 1..4) or not (u, no rows: nothing
// unknown either). hash(id, vindex=xxhash) is another vindex: both tables
// are rewritten, t's 4 rows counted, u unknown (unsampled). And
// hash(id) to hash(tenant) re-keys t (another column).
func TestReshardSamePlacementSpelledOtherwise(t *testing.T) {
	tb := &shardkey.Table{Name: "t", Columns: []*shardkey.Column{{Name: "id", Type: shardkey.Int64}, {Name: "tenant", Type: shardkey.Int64}}}
	for i := range 4 {
		if tb.Columns[0].Append(shardkey.IntValue(int64(i+1))) != nil || tb.Columns[1].Append(shardkey.IntValue(int64(i%2))) != nil {
			t.Fatal("append")
		}
	}
	tb.Rows = 4
	u := &shardkey.Table{Name: "u", Columns: []*shardkey.Column{{Name: "id", Type: shardkey.Int64}}}
	w := &shardkey.Workload{Tables: []*shardkey.Table{tb, u}, Shards: 2}
	if err := w.Validate(); err != nil {
		t.Fatal(err)
	}
	eng, err := partition.Lookup("vitess")
	if err != nil {
		t.Fatal(err)
	}
	compile := func(key string) *Scheme {
		t.Helper()
		d, err := shardkey.ParseDesign(key)
		if err != nil {
			t.Fatal(err)
		}
		s, err := Compile(w, d, Options{Shards: 2, Engine: eng})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	check := func(from, to string, rewritten []bool, rows float64, unsampled int) {
		t.Helper()
		m, err := Reshard(w, compile(from), compile(to))
		if err != nil {
			t.Fatal(err)
		}
		for i, tm := range m.Tables {
			if tm.Rewritten != rewritten[i] {
				t.Errorf("%s -> %s: table %s rewritten %v; want %v", from, to, tm.Table, tm.Rewritten, rewritten[i])
			}
		}
		if m.Rows != rows || len(m.Unsampled) != unsampled {
			t.Errorf("%s -> %s: rows %v, unsampled %v; want %v, %d tables", from, to, m.Rows, m.Unsampled, rows, unsampled)
		}
	}
	check("hash(id)", "hash(id, vindex=hash)", []bool{false, false}, 0, 0)
	check("hash(id, vindex=hash)", "hash(id)", []bool{false, false}, 0, 0)
	check("hash(id)", "hash(id, vindex=xxhash)", []bool{true, true}, 4, 1)
	check("hash(id)", "t:hash(tenant); u:hash(id)", []bool{true, false}, 4, 0)
}
