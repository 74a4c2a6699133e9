package emit_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/shardkey/shardkey/emit"
)

// TestMongoDB_TupleBounds: composite split points of a compound pattern
// {customer_id: 1, order_month: "hashed"} become sh.splitAt at the whole
// key, the hashed field's value as the NumberLong MongoDB orders it by
// (SERVER-14761: a hashed field's split points are NumberLongs), and the
// chunks between them are moved to the i-th shard with their bounds.
func TestMongoDB_TupleBounds(t *testing.T) {
	d := design(t, `orders:range({customer_id: 1, order_month: "hashed"}, bounds=[(5, -100), (9, 42)])`)
	script, err := emit.MongoDB(orders(t), d, emit.Options{Shards: 3})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range runMongo(t, script, 3) {
		if c.fn == "splitAt" {
			got = append(got, fmt.Sprint(c.args))
		}
	}
	want := []string{
		"[app.orders map[customer_id:map[$numberLong:5] order_month:map[$numberLong:-100]]]",
		"[app.orders map[customer_id:map[$numberLong:9] order_month:map[$numberLong:42]]]",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("splitAt calls\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, w := range []string{
		`bounds: [{ customer_id: MinKey, order_month: MinKey }, { customer_id: NumberLong("5"), order_month: NumberLong("-100") }], to: shardIds[0]`,
		`bounds: [{ customer_id: NumberLong("5"), order_month: NumberLong("-100") }, { customer_id: NumberLong("9"), order_month: NumberLong("42") }], to: shardIds[1]`,
		`bounds: [{ customer_id: NumberLong("9"), order_month: NumberLong("42") }, { customer_id: MaxKey, order_month: MaxKey }], to: shardIds[2]`,
	} {
		if !strings.Contains(script, w) {
			t.Errorf("no moveChunk %s in\n%s", w, script)
		}
	}
	if strings.Contains(script, "WARNING") {
		t.Errorf("a warning for bounds it writes:\n%s", script)
	}
}

// TestCockroachDB_TupleBounds: composite split points are CockroachDB's
// SPLIT AT VALUES of tuples, one value per leading primary key column.
func TestCockroachDB_TupleBounds(t *testing.T) {
	script, err := emit.CockroachDB(orders(t), design(t, "orders:range(customer_id, order_id, bounds=[(5, 100), (9, 7)])"), emit.Options{Shards: 3})
	if err != nil {
		t.Fatal(err)
	}
	crdbStatements(t, script)
	if w := "ALTER TABLE orders SPLIT AT VALUES (5, 100), (9, 7);"; !strings.Contains(script, w) {
		t.Errorf("no %q in\n%s", w, script)
	}
}

// TestCockroachDB_HeaderUnit: the header counts a range design's ranges,
// not buckets (a bucket is a hash-sharded index's; fresh-clone review),
// and a hash design's buckets.
func TestCockroachDB_HeaderUnit(t *testing.T) {
	for d, want := range map[string]string{
		"orders:range(order_id, bounds=[100, 200])": "on CockroachDB, 3 ranges.",
		"orders:hash(order_id)":                     "on CockroachDB, 3 buckets.",
	} {
		script, err := emit.CockroachDB(orders(t), design(t, d), emit.Options{Shards: 3})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(script, want) {
			t.Errorf("%s: header lacks %q:\n%s", d, want, strings.SplitN(script, "\n", 2)[0])
		}
	}
}
