package emit_test

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/emit"
	"github.com/shardkey/shardkey/scenario"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// orders returns the built-in orders scenario's workload.
func orders(t *testing.T) *shardkey.Workload {
	t.Helper()
	s, err := scenario.Builtin("orders")
	if err != nil {
		t.Fatal(err)
	}
	w, err := scenario.Build(s, "")
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// tpcc returns a small TPC-C-like workload built by hand: 8 warehouses,
// their districts, customers and stock, the item catalogue, and a history
// table that the test designs leave unplaced.
func tpcc(t *testing.T) *shardkey.Workload {
	t.Helper()
	w := &shardkey.Workload{Name: "tpcc", Shards: 8}
	add := func(name string, rows int, cols []string, types []shardkey.Type, val func(r, c int) shardkey.Value) {
		tb := &shardkey.Table{Name: name, Rows: rows}
		for c, col := range cols {
			tb.AddColumn(col, types[c])
			for r := 0; r < rows; r++ {
				if err := tb.Columns[c].Append(val(r, c)); err != nil {
					t.Fatal(err)
				}
			}
		}
		w.Tables = append(w.Tables, tb)
	}
	i32 := func(v int) shardkey.Value { return shardkey.Value{Type: shardkey.Int32, Int: int64(v)} }
	add("warehouse", 8, []string{"w_id"}, []shardkey.Type{shardkey.Int32}, func(r, _ int) shardkey.Value { return i32(r + 1) })
	add("district", 80, []string{"d_w_id", "d_id"}, []shardkey.Type{shardkey.Int32, shardkey.Int32}, func(r, c int) shardkey.Value {
		return i32([]int{r/10 + 1, r%10 + 1}[c])
	})
	add("customer", 240, []string{"c_w_id", "c_d_id", "c_id", "c_last"}, []shardkey.Type{shardkey.Int32, shardkey.Int32, shardkey.Int32, shardkey.Text}, func(r, c int) shardkey.Value {
		if c == 3 {
			return shardkey.TextValue([]string{"BARBARBAR", "OUGHTABLEPRI", "ANTICALLYESE"}[r%3])
		}
		return i32([]int{r/30 + 1, r/3%10 + 1, r + 1}[c])
	})
	add("stock", 400, []string{"s_w_id", "s_i_id"}, []shardkey.Type{shardkey.Int32, shardkey.Int32}, func(r, c int) shardkey.Value {
		return i32([]int{r/50 + 1, r%50 + 1}[c])
	})
	add("item", 50, []string{"i_id", "i_name"}, []shardkey.Type{shardkey.Int32, shardkey.Text}, func(r, c int) shardkey.Value {
		if c == 1 {
			return shardkey.TextValue("item-" + string(rune('a'+r%26)))
		}
		return i32(r + 1)
	})
	add("history", 10, []string{"h_amount"}, []shardkey.Type{shardkey.Float64}, func(r, _ int) shardkey.Value { return shardkey.FloatValue(10) })
	if err := w.Validate(); err != nil {
		t.Fatal(err)
	}
	return w
}

const tpccDesign = "warehouse:hash(w_id); district:hash(d_w_id); customer:isolate(hash(c_w_id), top=1); stock:hash(s_w_id); item:replicate"

func design(t *testing.T, s string) *shardkey.Design {
	t.Helper()
	d, err := shardkey.ParseDesign(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// goldenCase is one workload and design, emitted in every format.
type goldenCase struct {
	name   string
	w      func(*testing.T) *shardkey.Workload
	design string
	o      emit.Options
}

var goldenCases = []goldenCase{
	{name: "orders-isolate", w: orders, design: "isolate(hash(customer_id), top=3)"},
	{name: "tpcc", w: tpcc, design: tpccDesign, o: emit.Options{Keyspace: "tpcc", Hot: map[string][]shardkey.Value{"customer": {shardkey.IntValue(3)}}}},
	{name: "orders-compound-range", w: orders, design: "orders:hash(customer_id, order_month); order_line:range(order_id, bounds=[5000, 10000])", o: emit.Options{Shards: 3}},
	{name: "orders-salt-timerange", w: orders, design: "orders:salt(hash(customer_id), 4, top=2); order_line:range(order_month)", o: emit.Options{Engine: "vitess-xxhash"}},
}

var goldenExt = map[string]string{"vschema": ".json", "citus": ".sql", "mongodb": ".js", "cockroachdb": ".sql"}

// TestEmit_Golden compares every format's output for each case with
// testdata/<case>.<format><ext>; run with -update to rewrite them. The
// VSchema's notes follow its JSON, one per line after "// notes". The
// MongoDB and CockroachDB outputs have no parser to check them here (see
// TestMongoDB_Run and TestCockroachDB_Lex), so these goldens are their
// main check.
func TestEmit_Golden(t *testing.T) {
	for _, c := range goldenCases {
		w := c.w(t)
		d := design(t, c.design)
		for _, f := range emit.Formats() {
			t.Run(c.name+"/"+f, func(t *testing.T) {
				got, notes, err := emit.Emit(f, w, d, c.o)
				if err != nil {
					t.Fatal(err)
				}
				if len(notes) > 0 {
					got = append(got, "// notes\n"+strings.Join(notes, "\n")+"\n"...)
				}
				file := filepath.Join("testdata", c.name+"."+f+goldenExt[f])
				if *update {
					if err := os.WriteFile(file, got, 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := os.ReadFile(file)
				if err != nil {
					t.Fatalf("%v (run go test -update)", err)
				}
				if !bytes.Equal(got, want) {
					gotFile := filepath.Join(t.TempDir(), filepath.Base(file))
					os.WriteFile(gotFile, got, 0o644)
					diff, _ := exec.Command("diff", "-u", file, gotFile).CombinedOutput()
					t.Errorf("Emit(%q, %s) differs from %s:\n%s", f, c.name, file, diff)
				}
				// Deterministic: a second run gives the same bytes.
				again, _, _ := emit.Emit(f, w, d, c.o)
				if !bytes.HasPrefix(got, again) {
					t.Errorf("Emit(%q, %s) is not deterministic", f, c.name)
				}
			})
		}
	}
}

func TestEmit_Errors(t *testing.T) {
	w := orders(t)
	check := func(format, d string, o emit.Options, want string) {
		t.Helper()
		_, _, err := emit.Emit(format, w, design(t, d), o)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Emit(%q, %q) error = %v; want %q", format, d, err, want)
		}
	}
	check("yaml", "hash(customer_id)", emit.Options{}, `unknown format "yaml"`)
	check("citus", "nosuch:hash(x)", emit.Options{}, "no table nosuch")
	check("citus", "hash(nosuch)", emit.Options{}, "places no table")
	check("vschema", "orders:hash(nosuch)", emit.Options{}, "no column nosuch")
	check("mongodb", "orders:range(order_id, bounds=[x])", emit.Options{}, `range bound "x"`)
	check("citus", "hash(customer_id)", emit.Options{Shards: -1}, "must be at least 1")
	if _, _, err := emit.Emit("yaml", w, design(t, "hash(customer_id)"), emit.Options{}); !errors.Is(err, emit.ErrUnknownFormat) {
		t.Errorf("unknown format: error %v is not ErrUnknownFormat", err)
	}
}

func TestFormats(t *testing.T) {
	if got := strings.Join(emit.Formats(), ","); got != "citus,cockroachdb,mongodb,vschema" {
		t.Errorf("Formats() = %s", got)
	}
}

// TestHotFromSample: without Options.Hot, isolate's values are the top=N of
// the sample, here the orders scenario's three heaviest customers (zipf:
// customers 1, 2, 3).
func TestHotFromSample(t *testing.T) {
	sql, err := emit.Citus(orders(t), design(t, "isolate(hash(customer_id), top=3)"), emit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"1", "2", "3"} {
		if !strings.Contains(sql, "isolate_tenant_to_new_shard('orders', "+v+", 'CASCADE')") {
			t.Errorf("no isolation of customer %s in\n%s", v, sql)
		}
	}
	if strings.Count(sql, "isolate_tenant_to_new_shard") != 3 {
		t.Errorf("want 3 isolations (once per co-location group):\n%s", sql)
	}
}
