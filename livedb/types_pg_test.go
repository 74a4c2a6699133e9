package livedb

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/shardkey/shardkey"
)

// Values are read in their own types (binary, or the server's text output)
// and converted here; each expected value is written from the literal
// inserted, not from the reader.
func TestRead_PostgreSQLTypes(t *testing.T) {
	dsn, db := pgTestDB(t)
	ctx := context.Background()
	for _, q := range []string{
		`CREATE DOMAIN public.small AS int2 CHECK (VALUE > -1000)`,
		`CREATE TABLE public.kinds (id int PRIMARY KEY, b bool, s public.small, o oid, f4 float4, f8 float8, n numeric,
		   m money, d date, ts timestamp, tz timestamptz, u uuid, by bytea, j jsonb, a int[])`,
		`INSERT INTO public.kinds VALUES
		   (1, true, -7, 4000000000, 1.5, -2.25, 12345.678, '-1,234.56', '1969-12-31', '1960-01-01 00:00:01', '2024-02-29 12:00:00+02',
		    '00010203-0405-0607-0809-0a0b0c0d0e0f', '\x00ff', '{"k": 1}', '{1,2}'),
		   (2, false, 0, 0, 'NaN', 'Infinity', 'NaN', 0, 'infinity', '-infinity', 'infinity', NULL, '\x', NULL, '{}'),
		   (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)`,
	} {
		if _, err := db.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	w := &shardkey.Workload{Seed: 1}
	if err := Read(ctx, w, dsn, Options{NoStatements: true}); err != nil {
		t.Fatal(err)
	}
	k := w.Table("kinds")
	if k == nil || k.Rows != 3 {
		t.Fatalf("kinds = %v; want 3 rows", k)
	}
	us := func(tm time.Time) int64 { return tm.UnixMicro() }
	null := shardkey.Value{}
	want := map[string][3]shardkey.Value{
		"b":  {{Type: shardkey.Int16, Int: 1}, {Type: shardkey.Int16, Int: 0}, null},
		"s":  {{Type: shardkey.Int16, Int: -7}, {Type: shardkey.Int16, Int: 0}, null},
		"o":  {{Type: shardkey.Int64, Int: 4000000000}, {Type: shardkey.Int64, Int: 0}, null},
		"f4": {{Type: shardkey.Float32, Float: 1.5}, {Type: shardkey.Float32, Float: math.NaN()}, null},
		"f8": {{Type: shardkey.Float64, Float: -2.25}, {Type: shardkey.Float64, Float: math.Inf(1)}, null},
		"n":  {{Type: shardkey.Float64, Float: 12345.678}, {Type: shardkey.Float64, Float: math.NaN()}, null},
		"m":  {{Type: shardkey.Float64, Float: -1234.56}, {Type: shardkey.Float64, Float: 0}, null},
		"d":  {shardkey.TimeValue(-86400e6), null, null},
		"ts": {shardkey.TimeValue(us(time.Date(1960, 1, 1, 0, 0, 1, 0, time.UTC))), null, null},
		"tz": {shardkey.TimeValue(us(time.Date(2024, 2, 29, 10, 0, 0, 0, time.UTC))), null, null},
		"u":  {{Type: shardkey.UUID, Str: "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f"}, null, null},
		"by": {{Type: shardkey.Bytes, Str: "\x00\xff"}, {Type: shardkey.Bytes, Str: ""}, null},
		"j":  {shardkey.TextValue(`{"k": 1}`), null, null},
		"a":  {shardkey.TextValue("{1,2}"), shardkey.TextValue("{}"), null},
	}
	for col, vals := range want {
		c := k.Column(col)
		if c == nil {
			t.Errorf("column %s missing", col)
			continue
		}
		for i := 0; i < 3; i++ {
			row := int(k.Column("id").Value(i).Int) - 1
			got, exp := c.Value(i), vals[row]
			if got.Type == exp.Type && (got.Type == shardkey.Float32 || got.Type == shardkey.Float64) && math.IsNaN(got.Float) && math.IsNaN(exp.Float) {
				continue
			}
			if got != exp {
				t.Errorf("%s row %d = %+v; want %+v", col, row+1, got, exp)
			}
		}
	}
}
