package input

import (
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
)

// TestJSONLExtendedJSON reads mongoexport output (canonical and relaxed
// Extended JSON v2) and checks each field gets the BSON type MongoDB
// stores: ObjectId _id, int64 user ids, Date created, bools, and embedded
// documents as any BSON value.
func TestJSONLExtendedJSON(t *testing.T) {
	rows := write(t, "orders.jsonl", `{"_id":{"$oid":"5b2be413c06d924ab26ff9ca"},"user_id":{"$numberLong":"42"},"created":{"$date":"2024-01-02T03:04:05.123Z"},"paid":true,"addr":{"city":"Oslo"}}
{"_id":{"$oid":"5b2be414c06d924ab26ff9cb"},"user_id":7,"created":{"$date":{"$numberLong":"1704164645124"}},"paid":false,"addr":{"city":"Rome","zip":"00100"}}
{"_id":{"$oid":"5b2be415c06d924ab26ff9cc"},"user_id":{"$numberInt":"9"},"created":null,"paid":true,"addr":null}
`)
	tb, err := ReadRows(rows, "orders", Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]shardkey.Type{"_id": shardkey.ObjectID, "user_id": shardkey.Int64, "created": shardkey.Date,
		"paid": shardkey.Bool, "addr": shardkey.ExtJSON}
	for name, typ := range want {
		c := tb.Column(name)
		if c == nil || c.Type != typ {
			t.Fatalf("column %s: %v; want type %s", name, c, typ)
		}
	}
	check := func(col string, row int, want string) {
		t.Helper()
		if got := tb.Column(col).Value(row).String(); got != want {
			t.Errorf("%s[%d] = %s; want %s", col, row, got, want)
		}
	}
	check("_id", 1, "5b2be414c06d924ab26ff9cb")
	check("user_id", 0, "42")
	check("user_id", 2, "9")
	check("created", 0, "2024-01-02T03:04:05.123Z")
	check("created", 1, "2024-01-02T03:04:05.124Z")
	check("created", 2, "None")
	check("paid", 1, "false")
	check("addr", 1, `{"city":"Rome","zip":"00100"}`)

	// Typed columns: an ObjectId column from hex strings, a date column
	// from milliseconds, any value as extjson.
	rows2 := write(t, "r.jsonl", `{"_id":"5b2be413c06d924ab26ff9ca","ts":1704164645123,"v":"x"}
{"_id":{"$oid":"5b2be413c06d924ab26ff9cb"},"ts":"2024-01-02T03:04:05Z","v":{"$oid":"5b2be413c06d924ab26ff9cb"}}
`)
	tb, err = ReadRows(rows2, "r", Options{Types: map[string]shardkey.Type{"_id": shardkey.ObjectID, "ts": shardkey.Date, "v": shardkey.ExtJSON}})
	if err != nil {
		t.Fatal(err)
	}
	check("_id", 0, "5b2be413c06d924ab26ff9ca")
	check("ts", 0, "2024-01-02T03:04:05.123Z")
	check("ts", 1, "2024-01-02T03:04:05.000Z")
	check("v", 0, `"x"`)
	check("v", 1, `{"$oid":"5b2be413c06d924ab26ff9cb"}`)

	// Mixed BSON and strings read as any BSON value.
	mixed := write(t, "m.jsonl", `{"k":{"$oid":"5b2be413c06d924ab26ff9ca"}}
{"k":"plain"}
`)
	if tb, err = ReadRows(mixed, "m", Options{}); err != nil || tb.Column("k").Type != shardkey.ExtJSON {
		t.Fatalf("mixed column: %v, %v", tb, err)
	}

	for body, msg := range map[string]string{
		`{"k":{"$oid":"nothex"}}`:                        ".jsonl:1: k: ",
		"{\"k\":1}\n{\"k\":{\"$date\":\"yesterday\"}}\n": ".jsonl:2: k: ",
	} {
		if _, err := ReadRows(write(t, "bad.jsonl", body), "bad", Options{}); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%q: error %v; want one naming %s", body, err, msg)
		}
	}
}

// TestCSVBSONColumns reads CSV columns typed objectid and date.
func TestCSVBSONColumns(t *testing.T) {
	rows := write(t, "r.csv", "_id,created\n5b2be413c06d924ab26ff9ca,2024-01-02T03:04:05.123Z\n5b2be414c06d924ab26ff9cb,1704164645124\n")
	tb, err := ReadRows(rows, "r", Options{Types: map[string]shardkey.Type{"_id": shardkey.ObjectID, "created": shardkey.Date}})
	if err != nil {
		t.Fatal(err)
	}
	if c := tb.Column("_id"); c.Type != shardkey.ObjectID || c.Value(1).String() != "5b2be414c06d924ab26ff9cb" {
		t.Errorf("_id: %s %v", c.Type, c.Value(1))
	}
	if c := tb.Column("created"); c.Type != shardkey.Date || c.Value(0).Int != 1704164645123 || c.Value(1).Int != 1704164645124 {
		t.Errorf("created: %s %v %v", c.Type, c.Value(0), c.Value(1))
	}
	bad := write(t, "b.csv", "_id\n5b2be413c06d924ab26ff9c\n")
	if _, err := ReadRows(bad, "b", Options{Types: map[string]shardkey.Type{"_id": shardkey.ObjectID}}); err == nil || !strings.Contains(err.Error(), "objectid") {
		t.Errorf("short ObjectId: %v", err)
	}
}
