package sim

import (
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/partition"
)

// mixedVindexWorkload: users(user_id) and accounts(login), keyed in a
// VSchema by different primary vindexes (hash and unicode_loose_md5).
// The expected shards are the keyspace ids of the real Vitess vindexes
// (vitess.io/vitess v0.24.4) among 8 even ranges (-20, 20-40, ..., e0-):
//
//	hash 1 -> 166b40b44aba4bd6 (-20: 0), 2 -> 06e7ea22ce92708f (0),
//	5 -> 70bb023c810ca87a (60-80: 3), 6 -> f098480ac4c4be71 (e0-: 7)
//	(hash_test.go TestHashMap, partition/testdata/vectors/vitess_vindexes.json)
//	unicode_loose_md5 TEST -> 0b5edbb4... (-20: 0), Bést -> c2b2332e...
//	(c0-e0: 6) (unicodeloosemd5_test.go, the same vectors file);
//	O'Brien -> c3103b2f0161c594beb65c5512f137d4 (c0-e0: 6) and
//	hello -> e651ea77... (e0-: 7), from vindexes.CreateVindex(
//	"unicode_loose_md5").Map run on the v0.24.4 module.
func mixedVindexWorkload(t *testing.T) *shardkey.Workload {
	t.Helper()
	users := &shardkey.Table{Name: "users", Rows: 4, Columns: []*shardkey.Column{
		{Name: "user_id", Type: shardkey.Int64, Ints: []int64{1, 2, 5, 6}},
	}}
	accounts := &shardkey.Table{Name: "accounts", Rows: 4, Columns: []*shardkey.Column{
		{Name: "login", Type: shardkey.Text, Strs: []string{"TEST", "Bést", "O'Brien", "hello"}},
	}}
	w := &shardkey.Workload{Tables: []*shardkey.Table{users, accounts},
		Ops: []*shardkey.Operation{
			{Name: "user", Table: 0, Kind: shardkey.Read, Rate: 1, Instances: []shardkey.Instance{{Weight: 1, Conds: []shardkey.Cond{{Col: 0, Op: shardkey.Eq, Val: shardkey.Value{Type: shardkey.Int64, Int: 5}}}}}},
		}}
	if err := w.Validate(); err != nil {
		t.Fatal(err)
	}
	return w
}

// TestVindexPerTable: hash(col, vindex=TYPE) places each table by its own
// Vitess vindex, whatever vitess-* engine the scheme has, in one scheme:
// users.user_id = 5 on hash's shard 3 and accounts.login = 'O”Brien' on
// unicode_loose_md5's shard 6, the rows likewise.
func TestVindexPerTable(t *testing.T) {
	w := mixedVindexWorkload(t)
	d, err := shardkey.ParseDesign("users:hash(user_id, vindex=hash); accounts:hash(login, vindex=unicode_loose_md5)")
	if err != nil {
		t.Fatal(err)
	}
	text := func(s string) shardkey.Value { return shardkey.Value{Type: shardkey.Text, Str: s} }
	i64 := func(v int64) shardkey.Value { return shardkey.Value{Type: shardkey.Int64, Int: v} }
	for _, engine := range []string{"vitess", "vitess-unicode-loose-md5", "vitess-xxhash"} {
		eng, err := partition.Lookup(engine)
		if err != nil {
			t.Fatal(err)
		}
		s, err := Compile(w, d, Options{Shards: 8, Engine: eng})
		if err != nil {
			t.Fatalf("engine %s: %v", engine, err)
		}
		for _, c := range []struct {
			table int
			v     shardkey.Value
			want  int
		}{
			{0, i64(5), 3}, {0, i64(6), 7}, {0, i64(1), 0},
			{1, text("O'Brien"), 6}, {1, text("o'brien"), 6}, {1, text("Bést"), 6}, {1, text("TEST"), 0}, {1, text("hello"), 7},
		} {
			rt, err := s.Explain(c.table, shardkey.Read, []shardkey.Cond{{Col: 0, Op: shardkey.Eq, Val: c.v}})
			if err != nil {
				t.Fatal(err)
			}
			if len(rt.Shards) != 1 || rt.Shards[0] != c.want {
				t.Errorf("engine %s: %s = %s: shards %v (%s); want [%d]", engine, w.Tables[c.table].Name, c.v, rt.Shards, rt.Reason, c.want)
			}
		}
		p, err := Run(w, s, 1)
		if err != nil {
			t.Fatal(err)
		}
		// Rows: users 1, 2 on 0, 5 on 3, 6 on 7; accounts TEST on 0,
		// Bést and O'Brien on 6, hello on 7.
		want := []float64{3, 0, 0, 1, 0, 0, 2, 2}
		got := s.Report(p).ShardLoad
		if !sameShape(got, want) {
			t.Errorf("engine %s: shard load %v; want proportional to %v", engine, got, want)
		}
	}
}

func sum(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s
}

// sameShape reports whether got is want scaled by a positive factor.
func sameShape(got, want []float64) bool {
	if len(got) != len(want) || sum(got) == 0 {
		return false
	}
	k := sum(want) / sum(got)
	for i := range got {
		if !near(got[i]*k, want[i]) {
			return false
		}
	}
	return true
}

// TestVindexNeedsVitess: a key placed by a Vitess vindex under an engine
// of another system is refused at compile time, naming the key.
func TestVindexNeedsVitess(t *testing.T) {
	w := mixedVindexWorkload(t)
	d, err := shardkey.ParseDesign("users:hash(user_id, vindex=hash)")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Compile(w, d, Options{Shards: 8, Engine: partition.Generic{}})
	if err == nil || !strings.Contains(err.Error(), "hash(user_id, vindex=hash)") || !strings.Contains(err.Error(), "--engine vitess") {
		t.Errorf("err = %v; want a refusal naming the key and --engine vitess", err)
	}
}

// TestVindexEnginesRegistered: every vindex type a design may name has
// its engine in the registry, under that name, and compiles under a
// Vitess engine for a column of a type it maps (numeric, reverse_bits
// and hash integers; the others text too).
func TestVindexEnginesRegistered(t *testing.T) {
	w := mixedVindexWorkload(t)
	hash, err := partition.Lookup("vitess")
	if err != nil {
		t.Fatal(err)
	}
	for _, vt := range shardkey.VindexTypes() {
		name := shardkey.VindexEngine(vt)
		eng, err := partition.Lookup(name)
		if err != nil || eng.Name() != name {
			t.Errorf("vindex %s: engine %q: %v", vt, name, err)
			continue
		}
		col := "users:hash(user_id, vindex=" + vt + ")"
		if !shardkey.VindexIntegers(vt) {
			col = "accounts:hash(login, vindex=" + vt + ")"
		}
		d, err := shardkey.ParseDesign(col)
		if err != nil {
			t.Fatal(err)
		}
		s, err := Compile(w, d, Options{Shards: 8, Engine: hash})
		if err != nil {
			t.Errorf("%s: %v", col, err)
			continue
		}
		if got := s.KeyEngine(w.TableIndex(d.Order[0])); got != name {
			t.Errorf("%s: KeyEngine %q; want %q", col, got, name)
		}
	}
}
