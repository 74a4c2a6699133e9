package emit_test

import (
	"encoding/hex"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"vitess.io/vitess/go/sqltypes"
	vschemapb "vitess.io/vitess/go/vt/proto/vschema"
	"vitess.io/vitess/go/vt/sqlparser"
	"vitess.io/vitess/go/vt/vtgate/vindexes"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/emit"
)

// buildVSchema reads config as Vitess does (protojson into
// vschemapb.Keyspace, then vindexes.BuildKeyspaceSchema, which creates
// every vindex and checks every table) and fails the test on any error.
func buildVSchema(t *testing.T, config []byte) *vindexes.KeyspaceSchema {
	t.Helper()
	var ks vschemapb.Keyspace
	if err := protojson.Unmarshal(config, &ks); err != nil {
		t.Fatalf("protojson: %v\n%s", err, config)
	}
	if !ks.Sharded {
		t.Errorf("keyspace is not sharded")
	}
	built, err := vindexes.BuildKeyspaceSchema(&ks, "app", sqlparser.NewTestParser())
	if err != nil {
		t.Fatalf("BuildKeyspaceSchema: %v\n%s", err, config)
	}
	return built
}

// primary returns table's primary vindex: its type and columns.
func primary(t *testing.T, ks *vindexes.KeyspaceSchema, table string) (string, []string) {
	t.Helper()
	tb := ks.Tables[table]
	if tb == nil {
		t.Fatalf("no table %s in the built keyspace", table)
	}
	if len(tb.ColumnVindexes) == 0 {
		t.Fatalf("table %s has no column vindex", table)
	}
	cv := tb.ColumnVindexes[0]
	var cols []string
	for _, c := range cv.Columns {
		cols = append(cols, c.String())
	}
	return cv.Type, cols
}

// vitessKsid returns Vitess's own keyspace id of v under vindex vtype.
func vitessKsid(t *testing.T, vtype string, v sqltypes.Value) string {
	t.Helper()
	vx, err := vindexes.CreateVindex(vtype, vtype, nil)
	if err != nil {
		t.Fatal(err)
	}
	ksid, err := vx.(vindexes.Hashing).Hash(v)
	if err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(ksid)
}

func TestVSchema_OrdersIsolate(t *testing.T) {
	config, notes, err := emit.VSchema(orders(t), design(t, "isolate(hash(customer_id), top=3)"), emit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ks := buildVSchema(t, config)
	if vx := ks.Vindexes["hash"]; vx == nil || len(ks.Vindexes) != 1 {
		t.Fatalf("vindexes = %v; want just hash", ks.Vindexes)
	}
	for _, table := range []string{"orders", "order_line"} {
		if typ, cols := primary(t, ks, table); typ != "hash" || strings.Join(cols, ",") != "customer_id" {
			t.Errorf("%s: primary vindex %s%v; want hash[customer_id]", table, typ, cols)
		}
	}
	// Each isolated customer's keyspace id, as Vitess's hash vindex computes
	// it, is the start of a range of one keyspace id and a target shard.
	all := strings.Join(notes, "\n")
	for _, c := range []int64{1, 2, 3} {
		ksid := vitessKsid(t, "hash", sqltypes.NewInt64(c))
		if !strings.Contains(all, "keyspace ids "+ksid+"-") || !strings.Contains(all, ","+ksid+"-") {
			t.Errorf("customer %d (ksid %s): no isolated range or target shard in notes:\n%s", c, ksid, all)
		}
	}
	if strings.Count(all, "vtctldclient Reshard") != 3 {
		t.Errorf("want 3 reshards (the customers are in 3 shards):\n%s", all)
	}
}

func TestVSchema_TPCC(t *testing.T) {
	config, notes, err := emit.VSchema(tpcc(t), design(t, tpccDesign), emit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ks := buildVSchema(t, config)
	if tb := ks.Tables["item"]; tb == nil || tb.Type != vindexes.TypeReference {
		t.Errorf("item: %+v; want a reference table", tb)
	}
	for table, col := range map[string]string{"warehouse": "w_id", "district": "d_w_id", "customer": "c_w_id", "stock": "s_w_id"} {
		if typ, cols := primary(t, ks, table); typ != "hash" || strings.Join(cols, ",") != col {
			t.Errorf("%s: primary vindex %s%v; want hash[%s]", table, typ, cols, col)
		}
	}
	if ks.Tables["history"] != nil {
		t.Errorf("history is unplaced but in the VSchema")
	}
	all := strings.Join(notes, "\n")
	if !strings.Contains(all, "history: the design does not place it") {
		t.Errorf("no note on history:\n%s", all)
	}
	// The hot warehouse comes from the sample (top=1): every warehouse has
	// 30 customers, so the tie goes to the smallest text, "1".
	if ksid := vitessKsid(t, "hash", sqltypes.NewInt32(1)); !strings.Contains(all, "customer: isolate c_w_id=1: keyspace ids "+ksid) {
		t.Errorf("no isolation of warehouse 1 (ksid %s):\n%s", ksid, all)
	}
}

func TestVSchema_CompoundAndRange(t *testing.T) {
	d := design(t, "orders:hash(customer_id, order_month); order_line:range(order_id, bounds=[5000, 10000])")
	config, notes, err := emit.VSchema(orders(t), d, emit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ks := buildVSchema(t, config)
	if typ, cols := primary(t, ks, "orders"); typ != "multicol" || strings.Join(cols, ",") != "customer_id,order_month" {
		t.Errorf("orders: primary vindex %s%v; want multicol[customer_id order_month]", typ, cols)
	}
	if typ, cols := primary(t, ks, "order_line"); typ != "numeric" || strings.Join(cols, ",") != "order_id" {
		t.Errorf("order_line: primary vindex %s%v; want numeric[order_id]", typ, cols)
	}
	all := strings.Join(notes, "\n")
	for _, want := range []string{
		"multicol vindex: the keyspace id is the first 4 bytes of hash(customer_id), then xxhash(order_month)",
		"create these 3 shards, at the range bounds [5000, 10000] the design was scored with: -0000000000001388, 0000000000001388-0000000000002710, 0000000000002710-.",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("notes lack %q:\n%s", want, all)
		}
	}
	// The numeric vindex's keyspace id of 5000 is the first bound.
	if got := vitessKsid(t, "numeric", sqltypes.NewInt64(5000)); got != "0000000000001388" {
		t.Errorf("numeric(5000) = %s", got)
	}
}

// TestVSchema_Engines: a vitess-* --engine picks the vindex; one that
// cannot map the column's type falls back, with a note.
func TestVSchema_Engines(t *testing.T) {
	w := tpcc(t)
	check := func(d, engine, table, want, note string) {
		t.Helper()
		config, notes, err := emit.VSchema(w, design(t, d), emit.Options{Engine: engine})
		if err != nil {
			t.Fatal(err)
		}
		if typ, _ := primary(t, buildVSchema(t, config), table); typ != want {
			t.Errorf("%s with --engine %s: vindex %s; want %s", d, engine, typ, want)
		}
		if all := strings.Join(notes, "\n"); !strings.Contains(all, note) {
			t.Errorf("%s with --engine %s: notes lack %q:\n%s", d, engine, note, all)
		}
	}
	check("warehouse:hash(w_id)", "", "warehouse", "hash", "8 even shards")
	check("warehouse:hash(w_id)", "vitess-xxhash", "warehouse", "xxhash", "")
	check("warehouse:hash(w_id)", "vitess-reverse-bits", "warehouse", "reverse_bits", "")
	check("customer:hash(c_last)", "", "customer", "unicode_loose_md5", "")
	check("customer:hash(c_last)", "vitess-unicode-loose-xxhash", "customer", "unicode_loose_xxhash", "")
	check("customer:hash(c_last)", "vitess", "customer", "unicode_loose_md5", "the hash vindex maps integers only, not text")
	// binary.go: the keyspace id is the value's bytes, an order-preserving
	// vindex for text; floats have none (numeric takes integers only).
	check("customer:range(c_last)", "", "customer", "binary", "binary vindex, keyspace id = the value's bytes")
	check("history:range(h_amount)", "", "history", "xxhash", "Vitess has no order-preserving vindex for float")
	check("history:hash(h_amount)", "", "history", "xxhash", "")
}

// TestVSchema_HotOption: Options.Hot overrides the sample's hot values,
// and the ksid of a text value comes from the text vindex.
func TestVSchema_HotOption(t *testing.T) {
	o := emit.Options{Hot: map[string][]shardkey.Value{"customer": {shardkey.TextValue("OUGHTABLEPRI")}}}
	_, notes, err := emit.VSchema(tpcc(t), design(t, "customer:isolate(hash(c_last))"), o)
	if err != nil {
		t.Fatal(err)
	}
	ksid := vitessKsid(t, "unicode_loose_md5", sqltypes.NewVarChar("OUGHTABLEPRI"))
	if all := strings.Join(notes, "\n"); !strings.Contains(all, "isolate c_last=OUGHTABLEPRI: keyspace ids "+ksid+"-") {
		t.Errorf("no isolated range at %s:\n%s", ksid, all)
	}
}

// TestVSchema_Lookup: lookup(col) is written as Vitess's lookup vindexes
// (an owned lookup_unique or consistent_lookup vindex, its backing table
// sharded by the column), Vitess's own BuildKeyspaceSchema accepts it as
// a Lookup vindex owned by the table, and ReadVSchema reads the design
// back.
func TestVSchema_Lookup(t *testing.T) {
	w := &shardkey.Workload{Tables: []*shardkey.Table{{Name: "users", Rows: 2, Columns: []*shardkey.Column{
		{Name: "user_id", Type: shardkey.Int64, Ints: []int64{1, 2}},
		{Name: "email", Type: shardkey.Text, Strs: []string{"a@x", "b@x"}},
		{Name: "team", Type: shardkey.Int64, Ints: []int64{7, 7}},
	}}}}
	text := "users:hash(user_id), lookup(email), lookup(team, nonunique, consistent)"
	config, notes, err := emit.VSchema(w, design(t, text), emit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ks := buildVSchema(t, config)
	tb := ks.Tables["users"]
	if tb == nil || len(tb.ColumnVindexes) != 3 {
		t.Fatalf("users: %+v; want 3 column vindexes", tb)
	}
	for i, want := range []struct{ name, typ, col string }{{"users_email_lookup", "lookup_unique", "email"}, {"users_team_lookup", "consistent_lookup", "team"}} {
		cv := tb.ColumnVindexes[i+1]
		if cv.Name != want.name || cv.Type != want.typ || len(cv.Columns) != 1 || cv.Columns[0].String() != want.col || cv.Owned != true {
			t.Errorf("users column vindex %d: %s %s %v owned=%v; want %s %s [%s] owned", i+1, cv.Name, cv.Type, cv.Columns, cv.Owned, want.name, want.typ, want.col)
		}
		if _, ok := cv.Vindex.(vindexes.Lookup); !ok {
			t.Errorf("%s: Vitess does not build it as a Lookup vindex (%T)", cv.Name, cv.Vindex)
		}
	}
	if typ, cols := primary(t, ks, "users_email_lookup"); typ != "unicode_loose_md5" || strings.Join(cols, ",") != "email" {
		t.Errorf("users_email_lookup: primary vindex %s%v; want unicode_loose_md5[email]", typ, cols)
	}
	if typ, cols := primary(t, ks, "users_team_lookup"); typ != "hash" || strings.Join(cols, ",") != "team" {
		t.Errorf("users_team_lookup: primary vindex %s%v; want hash[team]", typ, cols)
	}
	all := strings.Join(notes, "\n")
	for _, want := range []string{"CREATE TABLE users_email_lookup (email VARCHAR(255) NOT NULL, keyspace_id VARBINARY(128), PRIMARY KEY (email))",
		"PRIMARY KEY (team, keyspace_id)"} {
		if !strings.Contains(all, want) {
			t.Errorf("notes lack %q:\n%s", want, all)
		}
	}
	back, err := emit.ReadVSchema(config)
	if err != nil {
		t.Fatal(err)
	}
	// The hash vindex emitted for the integer key is named in the
	// design read back.
	if want := "users:hash(user_id, vindex=hash), lookup(email), lookup(team, nonunique, consistent)"; back.Design != want || len(back.Warnings) != 0 {
		t.Errorf("read back: %q, warnings %q; want %q", back.Design, back.Warnings, want)
	}
}

// TestVSchemaMixedRoundTrip: a design that names each table's vindex
// emits those vindexes whatever the engine (here vitess-xxhash, which
// would give both xxhash), as Vitess builds them, and reads back as
// itself.
func TestVSchemaMixedRoundTrip(t *testing.T) {
	w := &shardkey.Workload{Tables: []*shardkey.Table{
		{Name: "users", Rows: 1, Columns: []*shardkey.Column{{Name: "user_id", Type: shardkey.Int64, Ints: []int64{5}}}},
		{Name: "accounts", Rows: 1, Columns: []*shardkey.Column{{Name: "login", Type: shardkey.Text, Strs: []string{"O'Brien"}}}},
	}}
	text := "accounts:hash(login, vindex=unicode_loose_md5); users:hash(user_id, vindex=hash)"
	config, notes, err := emit.VSchema(w, design(t, text), emit.Options{Engine: "vitess-xxhash"})
	if err != nil {
		t.Fatal(err)
	}
	ks := buildVSchema(t, config)
	if typ, cols := primary(t, ks, "users"); typ != "hash" || strings.Join(cols, ",") != "user_id" {
		t.Errorf("users: primary vindex %s%v; want hash[user_id]", typ, cols)
	}
	if typ, cols := primary(t, ks, "accounts"); typ != "unicode_loose_md5" || strings.Join(cols, ",") != "login" {
		t.Errorf("accounts: primary vindex %s%v; want unicode_loose_md5[login]", typ, cols)
	}
	for _, n := range notes {
		if strings.Contains(n, "maps integers only") {
			t.Errorf("note %q: no key is on the wrong type", n)
		}
	}
	back, err := emit.ReadVSchema(config)
	if err != nil {
		t.Fatal(err)
	}
	if back.Design != text || len(back.Warnings) != 0 {
		t.Errorf("read back: %q, warnings %q; want %q", back.Design, back.Warnings, text)
	}
	// A vindex that cannot map the column's type is emitted as named,
	// with a note.
	_, notes, err = emit.VSchema(w, design(t, "accounts:hash(login, vindex=hash)"), emit.Options{Engine: "vitess"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(notes, "\n"), "accounts.login: the design names the hash vindex, which maps integers only, not text") {
		t.Errorf("notes %q; want one on hash over text", notes)
	}
}

// TestVSchemaLookupNamesKept: a lookup read from a VSchema keeps its
// vindex's name and its backing table's name when the emitted design
// keeps it (review: name_user_idx was emitted as users_name_lookup, a
// table that does not exist); Vitess's BuildKeyspaceSchema accepts the
// result and resolves the lookup to the named table.
func TestVSchemaLookupNamesKept(t *testing.T) {
	in := []byte(`{"sharded": true,
  "vindexes": {"hash": {"type": "hash"},
    "name_user_map": {"type": "lookup_unique", "owner": "users",
      "params": {"table": "name_user_idx", "from": "name", "to": "keyspace_id"}}},
  "tables": {"users": {"column_vindexes": [{"column": "user_id", "name": "hash"}, {"column": "name", "name": "name_user_map"}]}}}`)
	vd, err := emit.ReadVSchema(in)
	if err != nil {
		t.Fatal(err)
	}
	w := &shardkey.Workload{Tables: []*shardkey.Table{{Name: "users", Rows: 1, Columns: []*shardkey.Column{
		{Name: "user_id", Type: shardkey.Int64, Ints: []int64{5}},
		{Name: "name", Type: shardkey.Text, Strs: []string{"x"}}}}}}
	config, notes, err := emit.VSchema(w, design(t, vd.Design), emit.Options{Engine: "vitess", Vindexes: vd.Vindexes})
	if err != nil {
		t.Fatal(err)
	}
	ks := buildVSchema(t, config)
	if _, ok := ks.Vindexes["name_user_map"]; !ok {
		t.Fatalf("vindexes %v; want name_user_map kept", ks.Vindexes)
	}
	if !strings.Contains(string(config), `"table": "name_user_idx"`) || strings.Contains(string(config), "users_name_lookup") {
		t.Errorf("emitted VSchema does not keep the backing table name_user_idx:\n%s", config)
	}
	if !strings.Contains(strings.Join(notes, "\n"), "CREATE TABLE name_user_idx") {
		t.Errorf("notes %q; want the DDL of name_user_idx", notes)
	}
}
