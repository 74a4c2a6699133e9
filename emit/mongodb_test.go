package emit_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/dop251/goja"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/emit"
	"github.com/shardkey/shardkey/partition"
)

// mongoCall is one sh.* call a script made, arguments as exported by goja.
type mongoCall struct {
	fn   string
	args []any
}

// runMongo runs a mongosh script in a JavaScript interpreter (goja) with
// stand-ins for sh, db, NumberLong, MinKey and MaxKey that record the
// calls, on a cluster of the given shards. No mongod is run: this checks
// that the script is valid JavaScript, that its set-up code runs, and what
// it asks MongoDB to do.
func runMongo(t *testing.T, script string, shards int) []mongoCall {
	t.Helper()
	vm := goja.New()
	var calls []mongoCall
	sh := vm.NewObject()
	for _, fn := range []string{"enableSharding", "shardCollection", "splitAt", "addShardToZone", "updateZoneKeyRange"} {
		sh.Set(fn, func(c goja.FunctionCall) goja.Value {
			var args []any
			for _, a := range c.Arguments {
				args = append(args, a.Export())
			}
			calls = append(calls, mongoCall{fn, args})
			return goja.Undefined()
		})
	}
	vm.Set("sh", sh)
	var ids []any
	for i := range shards {
		ids = append(ids, map[string]any{"_id": fmt.Sprintf("shard%02d", i)})
	}
	db := vm.NewObject()
	db.Set("adminCommand", func(goja.FunctionCall) goja.Value { return vm.ToValue(map[string]any{"shards": ids}) })
	vm.Set("db", db)
	vm.Set("NumberLong", func(s string) map[string]any { return map[string]any{"$numberLong": s} })
	vm.Set("MinKey", map[string]any{"$minKey": 1})
	vm.Set("MaxKey", map[string]any{"$maxKey": 1})
	if _, err := vm.RunString(script); err != nil {
		t.Fatalf("running the script: %v\n%s", err, script)
	}
	return calls
}

// bound returns a zone bound's first field as an int64 hashed value, with
// MinKey and MaxKey as the int64 extremes widened by one (so MinKey < every
// hash < MaxKey).
func bound(t *testing.T, doc any, field string) (v int64, min, max bool) {
	t.Helper()
	m := doc.(map[string]any)[field].(map[string]any)
	switch {
	case m["$minKey"] != nil:
		return 0, true, false
	case m["$maxKey"] != nil:
		return 0, false, true
	}
	n, err := strconv.ParseInt(m["$numberLong"].(string), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n, false, false
}

// TestMongoDB_RunOrdersIsolate: the whale zones of an isolated hashed key,
// written in shardkey's notation or as MongoDB's {customer_id: "hashed"}
// (the key advise --engine mongodb proposes): the same key, the same
// zones on the hot customers' hashed values.
func TestMongoDB_RunOrdersIsolate(t *testing.T) {
	for _, key := range []string{"isolate(hash(customer_id), top=3)", `isolate({customer_id: "hashed"}, top=3)`} {
		t.Run(key, func(t *testing.T) { runOrdersIsolate(t, key) })
	}
}

func runOrdersIsolate(t *testing.T, key string) {
	script, err := emit.MongoDB(orders(t), design(t, key), emit.Options{Keyspace: "shop"})
	if err != nil {
		t.Fatal(err)
	}
	calls := runMongo(t, script, 6)
	var fns []string
	zoneOf := map[string]string{} // shard -> zone
	type zr struct {
		lo, hi       int64
		loMin, hiMax bool
		zone         string
	}
	ranges := map[string][]zr{}
	for _, c := range calls {
		switch c.fn {
		case "enableSharding", "shardCollection":
			fns = append(fns, fmt.Sprintf("%s%v", c.fn, c.args))
		case "addShardToZone":
			zoneOf[c.args[0].(string)] = c.args[1].(string)
		case "updateZoneKeyRange":
			var r zr
			r.lo, r.loMin, _ = bound(t, c.args[1], "customer_id")
			r.hi, _, r.hiMax = bound(t, c.args[2], "customer_id")
			r.zone = c.args[3].(string)
			ns := c.args[0].(string)
			ranges[ns] = append(ranges[ns], r)
		}
	}
	want := "enableSharding[shop] shardCollection[shop.orders map[customer_id:hashed]] shardCollection[shop.order_line map[customer_id:hashed]]"
	if got := strings.Join(fns, " "); got != want {
		t.Errorf("calls %s; want %s", got, want)
	}
	// The last three shards hold one whale zone each; the rest hold "rest".
	if got := fmt.Sprint(zoneOf); got != "map[shard00:rest shard01:rest shard02:rest shard03:whale-0 shard04:whale-1 shard05:whale-2]" {
		t.Errorf("shard zones %s", got)
	}
	// Each collection's zone ranges cover MinKey..MaxKey without gaps, and
	// each whale zone is [h, h+1) with h the customer's MongoDB hash.
	whale := map[string]int64{}
	for _, c := range []int64{1, 2, 3} {
		h, err := partition.MongoDB{}.Hash([]shardkey.Value{shardkey.IntValue(c)})
		if err != nil {
			t.Fatal(err)
		}
		whale[fmt.Sprint(h.Int)] = h.Int
	}
	for _, ns := range []string{"shop.orders", "shop.order_line"} {
		rs := ranges[ns]
		if len(rs) != 7 || !rs[0].loMin || !rs[len(rs)-1].hiMax {
			t.Fatalf("%s: zone ranges %+v; want 7 from MinKey to MaxKey", ns, rs)
		}
		seen := 0
		for i, r := range rs {
			if i > 0 && rs[i-1].hi != r.lo {
				t.Errorf("%s: gap or overlap between %+v and %+v", ns, rs[i-1], r)
			}
			if strings.HasPrefix(r.zone, "whale-") {
				if _, ok := whale[fmt.Sprint(r.lo)]; !ok || r.hi != r.lo+1 {
					t.Errorf("%s: whale range %+v is not [h, h+1) of a hot customer's hash", ns, r)
				}
				seen++
			}
		}
		if seen != 3 {
			t.Errorf("%s: %d whale ranges; want 3", ns, seen)
		}
	}
}

// TestMongoDB_TooFewShards: the set-up code refuses a cluster too small
// to give each isolated value a shard.
func TestMongoDB_TooFewShards(t *testing.T) {
	script, err := emit.MongoDB(orders(t), design(t, "isolate(hash(customer_id), top=3)"), emit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = goja.New().RunString("var db = {adminCommand: () => ({shards: [{_id: 'a'}, {_id: 'b'}]})};" +
		"var sh = {enableSharding() {}, shardCollection() {}, addShardToZone() {}, updateZoneKeyRange() {}};" +
		"function NumberLong(s) { return s }; var MinKey = 0, MaxKey = 1;" + script)
	if err == nil || !strings.Contains(err.Error(), "needs at least 4 shards") {
		t.Errorf("error %v; want the script to refuse 2 shards", err)
	}
}

// TestMongoDB_Keys: compound hashed keys hash the first field; range keys
// split at the bounds; replicate is a comment.
func TestMongoDB_Keys(t *testing.T) {
	d := design(t, "orders:hash(customer_id, order_month); order_line:range(order_id, bounds=[5000, 10000])")
	script, err := emit.MongoDB(orders(t), d, emit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range runMongo(t, script, 4) {
		got = append(got, fmt.Sprintf("%s%v", c.fn, c.args))
	}
	want := "enableSharding[app] " +
		"shardCollection[app.orders map[customer_id:hashed order_month:1]] " +
		"shardCollection[app.order_line map[order_id:1]] " +
		"splitAt[app.order_line map[order_id:map[$numberLong:5000]]] " +
		"splitAt[app.order_line map[order_id:map[$numberLong:10000]]]"
	if g := strings.Join(got, " "); g != want {
		t.Errorf("calls\n%s\nwant\n%s", g, want)
	}
	if !strings.Contains(script, "MongoDB >= 4.4") {
		t.Errorf("no note on compound hashed keys:\n%s", script)
	}
	script, err = emit.MongoDB(tpcc(t), design(t, tpccDesign), emit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	runMongo(t, script, 4)
	if !strings.Contains(script, "// item: replicate: MongoDB has no reference collections") {
		t.Errorf("no comment on item:\n%s", script)
	}
}

// TestMongoDB_Pattern: a MongoDB pattern key is written as designed, its
// hashed field where the pattern puts it; engines that cannot order by
// MongoDB's hash refuse it.
func TestMongoDB_Pattern(t *testing.T) {
	d := design(t, `orders:{customer_id: 1, order_month: "hashed"}`)
	script, err := emit.MongoDB(orders(t), d, emit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range runMongo(t, script, 4) {
		got = append(got, fmt.Sprintf("%s%v", c.fn, c.args))
	}
	if g, want := strings.Join(got, " "), "enableSharding[app] shardCollection[app.orders map[customer_id:1 order_month:hashed]]"; g != want {
		t.Errorf("calls\n%s\nwant\n%s", g, want)
	}
	if !strings.Contains(script, `{ customer_id: 1, order_month: "hashed" }`) {
		t.Errorf("fields not in the pattern's order:\n%s", script)
	}
	if _, err := emit.Citus(orders(t), d, emit.Options{}); err == nil || !strings.Contains(err.Error(), "MongoDB's hashed value of order_month") {
		t.Errorf("Citus of a hashed pattern: error %v; want a refusal", err)
	}
}
