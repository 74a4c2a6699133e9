package emit_test

import (
	"slices"
	"strings"
	"testing"

	"vitess.io/vitess/go/sqltypes"
	"vitess.io/vitess/go/vt/key"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/emit"
	"github.com/shardkey/shardkey/partition"
	"github.com/shardkey/shardkey/sim"
)

// tpccLike is warehouses 1..10 and their customers (c_w_id), ten rows
// each, one read per warehouse.
func tpccLike() *shardkey.Workload {
	wh := &shardkey.Table{Name: "warehouse", Rows: 10}
	wid := &shardkey.Column{Name: "w_id", Type: shardkey.Int64}
	cu := &shardkey.Table{Name: "customer", Rows: 100}
	cw := &shardkey.Column{Name: "c_w_id", Type: shardkey.Int64}
	cid := &shardkey.Column{Name: "c_id", Type: shardkey.Int64}
	for i := 1; i <= 10; i++ {
		wid.Ints = append(wid.Ints, int64(i))
		wh.Weights = append(wh.Weights, 1)
		for j := 1; j <= 10; j++ {
			cw.Ints = append(cw.Ints, int64(i))
			cid.Ints = append(cid.Ints, int64(j))
			cu.Weights = append(cu.Weights, 1)
		}
	}
	wh.Columns = []*shardkey.Column{wid}
	cu.Columns = []*shardkey.Column{cw, cid}
	op := &shardkey.Operation{Name: "get", Table: 0, Kind: shardkey.Read, Rate: 10}
	for i := 1; i <= 10; i++ {
		op.Instances = append(op.Instances, shardkey.Instance{Weight: 1, Conds: []shardkey.Cond{{Col: 0, Op: shardkey.Eq, Val: shardkey.IntValue(int64(i))}}})
	}
	return &shardkey.Workload{Name: "tpcc-like", Tables: []*shardkey.Table{wh, cu}, Ops: []*shardkey.Operation{op}, Shards: 8}
}

// TestVSchemaRangeShardsRouteAsScored: a numeric range design with bounds
// [2..8] on 8 shards gives shards named by the bounds' keyspace ids (the
// 8-byte big-endian values in 16 hex digits, written by hand below), and
// Vitess's numeric vindex with Vitess's key ranges sends every w_id of
// 1..10 to the shard the scored design places it on (the simulator's
// route of w_id = v), read back from the emitted VSchema with ReadVSchema.
func TestVSchemaRangeShardsRouteAsScored(t *testing.T) {
	w := tpccLike()
	const bounds = "bounds=[2, 3, 4, 5, 6, 7, 8]"
	d := design(t, "warehouse:range(w_id, "+bounds+"); customer:range(c_w_id, "+bounds+")")
	var warned []string
	config, notes, err := emit.VSchema(w, d, emit.Options{Shards: 8, Warn: func(s string) { warned = append(warned, s) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(warned) > 0 {
		t.Errorf("warnings for a placement Vitess reproduces: %q", warned)
	}
	// By hand: 2 = 0x0000000000000002, ... 8 = 0x0000000000000008.
	names := []string{"-0000000000000002", "0000000000000002-0000000000000003", "0000000000000003-0000000000000004",
		"0000000000000004-0000000000000005", "0000000000000005-0000000000000006", "0000000000000006-0000000000000007",
		"0000000000000007-0000000000000008", "0000000000000008-"}
	all := strings.Join(notes, "\n")
	if !strings.Contains(all, "create these 8 shards, at the range bounds [2, 3, 4, 5, 6, 7, 8] the design was scored with: "+strings.Join(names, ", ")+".") {
		t.Fatalf("notes lack the 8 shards %v:\n%s", names, all)
	}
	vd, err := emit.ReadVSchema(config)
	if err != nil {
		t.Fatal(err)
	}
	if vd.Engine != "vitess-numeric" || vd.Design != "customer:hash(c_w_id, vindex=numeric); warehouse:hash(w_id, vindex=numeric)" {
		t.Fatalf("read back: engine %q design %q; want vitess-numeric over customer.c_w_id and warehouse.w_id", vd.Engine, vd.Design)
	}
	s, err := sim.Compile(w, d, sim.Options{Shards: 8})
	if err != nil {
		t.Fatal(err)
	}
	for v := int64(1); v <= 10; v++ {
		// Vitess: the numeric vindex's keyspace id, and the shard whose
		// key range (go/vt/key) holds it.
		ksid := vitessKsid(t, "numeric", sqltypes.NewInt64(v))
		vtShard := -1
		for i, name := range names {
			lo, hi, _ := strings.Cut(name, "-")
			kr, err := key.ParseKeyRangeParts(lo, hi)
			if err != nil {
				t.Fatal(err)
			}
			id, _ := key.ParseKeyRangeParts(ksid, "")
			if key.KeyRangeContains(kr, id.Start) {
				vtShard = i
			}
		}
		// By hand: [-inf, 2) is shard 0, [k, k+1) shard k-1, [8, inf) shard 7.
		want := min(max(int(v)-1, 0), 7)
		rt, err := s.Explain(0, shardkey.Read, []shardkey.Cond{{Col: 0, Op: shardkey.Eq, Val: shardkey.IntValue(v)}})
		if err != nil {
			t.Fatal(err)
		}
		if vtShard != want || !slices.Equal(rt.Shards, []int{want}) {
			t.Errorf("w_id %d (keyspace id %s): Vitess shard %d, scored %v; want %d", v, ksid, vtShard, rt.Shards, want)
		}
	}
}

// TestRangeMismatchWarned: where a configuration cannot place a range key
// by its ranges, Warn is called and the file says so: Citus
// hash-distributes it; a VSchema range key on a timestamp gets a hash
// vindex; a range key without bounds on CockroachDB and MongoDB is split
// by the system, not at the scored bounds. With bounds, CockroachDB and
// MongoDB split (and MongoDB moves chunk i to shard i) and do not warn.
func TestRangeMismatchWarned(t *testing.T) {
	w := tpccLike()
	bounded := design(t, "range(w_id, bounds=[3, 6]); customer:range(c_w_id, bounds=[3, 6])")
	bare := design(t, "range(w_id); customer:range(c_w_id)")
	for _, c := range []struct {
		format string
		d      *shardkey.Design
		warn   string // "" for none
		text   string // in the configuration
	}{
		{"citus", bounded, "Citus distributes by hash", "-- WARNING: Citus distributes by hash (create_distributed_table), not by ranges, so this configuration hash-distributes the range-keyed tables (warehouse, customer) by their key's first column: the placement Citus gets is not the range placement shardkey scored; FIGURES."},
		{"cockroachdb", bounded, "", "ALTER TABLE warehouse SPLIT AT VALUES (3), (6);"},
		{"cockroachdb", bare, "warehouse: range(w_id) has no range boundaries", "-- WARNING: warehouse: range(w_id) has no range boundaries"},
		{"mongodb", bounded, "", `db.adminCommand({ moveChunk: "app.customer", bounds: [{ c_w_id: NumberLong("6") }, { c_w_id: MaxKey }], to: shardIds[2] })`},
		{"mongodb", bare, "customer: range(c_w_id) has no range boundaries", "// WARNING: customer: range(c_w_id) has no range boundaries"},
		{"vschema", bare, "even shards emitted put every value below 2^48 in the first shard", ""},
	} {
		var warned []string
		out, notes, err := emit.Emit(c.format, w, c.d, emit.Options{Shards: 3, HashFallback: "FIGURES", Warn: func(s string) { warned = append(warned, s) }})
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Join(warned, "\n")
		if c.warn == "" && got != "" || !strings.Contains(got, c.warn) {
			t.Errorf("%s %s: warnings %q; want one with %q", c.format, c.d.Text, got, c.warn)
		}
		if c.format == "vschema" {
			out = []byte(strings.Join(notes, "\n"))
		}
		if !strings.Contains(string(out), c.text) {
			t.Errorf("%s %s: configuration lacks %q:\n%s", c.format, c.d.Text, c.text, out)
		}
	}
}

// TestVSchemaTextRangeBinaryVindex: a range key on a text column becomes
// Vitess's binary vindex (go/vt/vtgate/vindexes/binary.go: the keyspace id
// is the value's bytes unchanged, so byte order is keyspace-id order), with
// shards named by the bounds' bytes in hex (written by hand below: "user3"
// is 75 73 65 72 33), no warning and no hash fallback; and Vitess's own
// binary vindex with its key ranges (go/vt/key) sends every user1..user9 to
// the shard the scored design places it on.
func TestVSchemaTextRangeBinaryVindex(t *testing.T) {
	tb := &shardkey.Table{Name: "usertable", Rows: 9}
	c := &shardkey.Column{Name: "ycsb_key", Type: shardkey.Text}
	op := &shardkey.Operation{Name: "get", Table: 0, Kind: shardkey.Read, Rate: 9}
	for i := 1; i <= 9; i++ {
		v := shardkey.Value{Type: shardkey.Text, Str: "user" + string(rune('0'+i))}
		c.Strs = append(c.Strs, v.Str)
		tb.Weights = append(tb.Weights, 1)
		op.Instances = append(op.Instances, shardkey.Instance{Weight: 1, Conds: []shardkey.Cond{{Col: 0, Op: shardkey.Eq, Val: v}}})
	}
	tb.Columns = []*shardkey.Column{c}
	w := &shardkey.Workload{Name: "ycsb-like", Tables: []*shardkey.Table{tb}, Ops: []*shardkey.Operation{op}, Shards: 3}
	d := design(t, "range(ycsb_key, bounds=[user3, user6])")
	if eng := emit.HashEngine("vschema", w, d); eng != "" {
		t.Errorf("HashEngine = %q; want none (binary places the ranges)", eng)
	}
	var warned []string
	config, notes, err := emit.VSchema(w, d, emit.Options{Engine: "vitess", Warn: func(s string) { warned = append(warned, s) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(warned) > 0 {
		t.Errorf("warnings for a placement Vitess reproduces: %q", warned)
	}
	ks := buildVSchema(t, config)
	if typ, cols := primary(t, ks, "usertable"); typ != "binary" || strings.Join(cols, ",") != "ycsb_key" {
		t.Errorf("primary vindex %s%v; want binary[ycsb_key]", typ, cols)
	}
	names := []string{"-7573657233", "7573657233-7573657236", "7573657236-"}
	all := strings.Join(notes, "\n")
	if !strings.Contains(all, "create these 3 shards, at the range bounds [user3, user6] the design was scored with: "+strings.Join(names, ", ")+".") {
		t.Fatalf("notes lack the 3 shards %v:\n%s", names, all)
	}
	if strings.Contains(all, "no order-preserving") {
		t.Errorf("notes still say Vitess has no order-preserving vindex:\n%s", all)
	}
	vt, err := partition.Lookup("vitess")
	if err != nil {
		t.Fatal(err)
	}
	s, err := sim.Compile(w, d, sim.Options{Shards: 3, Engine: vt})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 9; i++ {
		v := "user" + string(rune('0'+i))
		ksid := vitessKsid(t, "binary", sqltypes.NewVarChar(v))
		vtShard := -1
		for j, name := range names {
			lo, hi, _ := strings.Cut(name, "-")
			kr, err := key.ParseKeyRangeParts(lo, hi)
			if err != nil {
				t.Fatal(err)
			}
			id, _ := key.ParseKeyRangeParts(ksid, "")
			if key.KeyRangeContains(kr, id.Start) {
				vtShard = j
			}
		}
		// By hand: user1, user2 below user3: shard 0; user3..user5: 1;
		// user6..user9: 2.
		want := min(i/3, 2)
		rt, err := s.Explain(0, shardkey.Read, []shardkey.Cond{{Col: 0, Op: shardkey.Eq, Val: shardkey.Value{Type: shardkey.Text, Str: v}}})
		if err != nil {
			t.Fatal(err)
		}
		if vtShard != want || !slices.Equal(rt.Shards, []int{want}) {
			t.Errorf("%s (keyspace id %s): Vitess shard %d, scored %v; want %d", v, ksid, vtShard, rt.Shards, want)
		}
	}
}

// TestVSchemaBytesRangeBinaryVindex: bytes bounds are written in hex, and
// binary's keyspace id of a byte string is the string itself, so
// range(k, bounds=[0x40, 0x80]) makes Vitess's usual shards -40, 40-80,
// 80- (hex keyspace-id prefixes, go/vt/key), no warning.
func TestVSchemaBytesRangeBinaryVindex(t *testing.T) {
	tb := &shardkey.Table{Name: "blobs", Rows: 1, Weights: []float64{1}, Columns: []*shardkey.Column{{Name: "k", Type: shardkey.Bytes, Strs: []string{"\x41"}}}}
	w := &shardkey.Workload{Name: "blobs", Tables: []*shardkey.Table{tb}, Shards: 3}
	var warned []string
	config, notes, err := emit.VSchema(w, design(t, "range(k, bounds=[0x40, 0x80])"), emit.Options{Warn: func(s string) { warned = append(warned, s) }})
	if err != nil {
		t.Fatal(err)
	}
	if typ, _ := primary(t, buildVSchema(t, config), "blobs"); typ != "binary" || len(warned) > 0 {
		t.Errorf("vindex %s, warnings %q; want binary and none", typ, warned)
	}
	if all := strings.Join(notes, "\n"); !strings.Contains(all, "create these 3 shards, at the range bounds [0x40, 0x80] the design was scored with: -40, 40-80, 80-.") {
		t.Errorf("notes lack the shards -40, 40-80, 80-:\n%s", all)
	}
	if got := vitessKsid(t, "binary", sqltypes.MakeTrusted(sqltypes.VarBinary, []byte{0x41})); got != "41" {
		t.Errorf("binary(0x41) = %s; want 41", got)
	}
}
