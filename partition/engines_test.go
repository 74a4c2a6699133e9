package partition

import (
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
)

// TestPointInt64 checks each Int64Pointer fast path against Point.
func TestPointInt64(t *testing.T) {
	for _, spec := range []string{"redis", "cassandra", "mongodb", "kafka", "kafka-librdkafka", "ketama"} {
		e := mustLookup(t, spec)
		ip, ok := e.(Int64Pointer)
		if !ok {
			t.Fatalf("%s is not an Int64Pointer", spec)
		}
		for _, v := range []int64{0, 1, -1, 42, math.MaxInt64, math.MinInt64, 1 << 40} {
			want, err := e.Point([]shardkey.Value{shardkey.IntValue(v)})
			if err != nil {
				t.Fatal(err)
			}
			if got := ip.PointInt64(v); got != want {
				t.Errorf("%s.PointInt64(%d) = %d; Point = %d", spec, v, got, want)
			}
		}
	}
}

// TestKeyEncodings pins how each engine serialises values beyond the
// vectors' types.
func TestKeyEncodings(t *testing.T) {
	uuid := shardkey.Value{Type: shardkey.UUID, Str: string([]byte{0x12, 0x3e, 0x45, 0x67, 0xe8, 0x9b, 0x12, 0xd3, 0xa4, 0x56, 0x42, 0x66, 0x14, 0x17, 0x40, 0x00})}
	ts := shardkey.TimeValue(-1) // 1µs before the epoch: -1 ms floored
	// Redis and ketama: integers are decimal text, compound keys joined by ':'.
	same := func(e Engine, a, b []shardkey.Value) {
		t.Helper()
		pa, errA := e.Point(a)
		pb, errB := e.Point(b)
		if errA != nil || errB != nil || pa != pb {
			t.Errorf("%s: Point(%v) = %d, %v; Point(%v) = %d, %v; want equal", e.Name(), a, pa, errA, b, pb, errB)
		}
	}
	for _, e := range []Engine{Redis{}, Ketama{}} {
		same(e, []shardkey.Value{shardkey.IntValue(-42)}, []shardkey.Value{shardkey.TextValue("-42")})
		same(e, []shardkey.Value{{Type: shardkey.Int32, Int: 7}}, []shardkey.Value{shardkey.TextValue("7")})
		same(e, []shardkey.Value{shardkey.TextValue("user"), shardkey.IntValue(1000)}, []shardkey.Value{shardkey.TextValue("user:1000")})
		same(e, []shardkey.Value{uuid}, []shardkey.Value{shardkey.TextValue("123e4567-e89b-12d3-a456-426614174000")})
	}
	// Redis hash tags apply to the joined key.
	same(Redis{}, []shardkey.Value{shardkey.TextValue("{user1000}"), shardkey.TextValue("following")},
		[]shardkey.Value{shardkey.TextValue("user1000")})
	// Cassandra: timestamp is 8-byte BE milliseconds, i.e. bigint of ms.
	same(Cassandra{}, []shardkey.Value{ts}, []shardkey.Value{shardkey.IntValue(-1)})
	same(Cassandra{}, []shardkey.Value{shardkey.TimeValue(1_700_000_000_123_456)}, []shardkey.Value{shardkey.IntValue(1_700_000_000_123)})
	// Kafka: Int16 ShortSerializer, UUID as its string, timestamp as LongSerializer of ms.
	short := make([]byte, 2)
	binary.BigEndian.PutUint16(short, uint16(0xfffe))
	same(Kafka{}, []shardkey.Value{{Type: shardkey.Int16, Int: -2}}, []shardkey.Value{bytesValue(string(short))})
	same(Kafka{}, []shardkey.Value{uuid}, []shardkey.Value{shardkey.TextValue("123e4567-e89b-12d3-a456-426614174000")})
	same(Kafka{}, []shardkey.Value{ts}, []shardkey.Value{shardkey.IntValue(-1)})
	// MongoDB: Timestamp is a Date of floored ms; 42 == 42.9 == int32 42.
	d0 := MongoHashElement(mongoDate, make([]byte, 8))
	if h, _ := (MongoDB{}).Hash([]shardkey.Value{shardkey.TimeValue(999)}); h != SignedHash(d0) {
		t.Errorf("mongodb: Hash(999µs) = %v; want Date(0) %d", h, d0)
	}
	same(MongoDB{}, []shardkey.Value{shardkey.FloatValue(42.9)}, []shardkey.Value{{Type: shardkey.Int32, Int: 42}})
	same(MongoDB{}, []shardkey.Value{{Type: shardkey.Float32, Float: -42.5}}, []shardkey.Value{shardkey.IntValue(-42)})

	// Keys the systems cannot place or serialise.
	null := []shardkey.Value{{}}
	for _, e := range []Engine{Redis{}, Cassandra{}, Kafka{}, KafkaLibrdkafka{}, Ketama{}} {
		if _, err := e.Point(null); err == nil {
			t.Errorf("%s: Point(NULL) succeeded; want ErrNoDestination", e.Name())
		}
	}
	if _, err := (MongoDB{}).Point(null); err != nil {
		t.Errorf("mongodb: Point(NULL) = %v; null is hashable", err)
	}
	two := []shardkey.Value{shardkey.IntValue(1), shardkey.IntValue(2)}
	for _, e := range []Engine{MongoDB{}, Kafka{}, KafkaLibrdkafka{}} {
		if _, err := e.Point(two); err == nil {
			t.Errorf("%s: Point of a 2-column key succeeded; want an error", e.Name())
		}
	}
	if _, err := (Cassandra{}).Point(two); err != nil {
		t.Errorf("cassandra: composite key: %v", err)
	}
}

// TestLookup checks that every fuzzed spec names itself and has a doc
// line, and that bad options are refused.
func TestLookup(t *testing.T) {
	for _, spec := range append(fuzzSpecs, "cassandra(num_tokens=8, seed=3)",
		"ketama(servers=h1:11211:600,h2:11211:300)", "ring(servers=a:1:2,b:1:1,c)") {
		e := mustLookup(t, spec)
		if e.Name() != spec {
			t.Errorf("Lookup(%q).Name() = %q", spec, e.Name())
		}
		if Doc(baseName(spec)) == "" {
			t.Errorf("%s: no doc line", spec)
		}
	}
	for _, bad := range []string{"cassandra:num_tokens=0", "cassandra:seed=x", "ketama:variant=x", "redis:x=1",
		"citus:shard_count=0", "elasticsearch:function=x", "elasticsearch:partition_size=0", "cockroachdb:generation=4", "vitess:x=1",
		"redis(x=1)", "ketama(variant=spy", "ketama(=1)", "ketama(variant=)", "ketama(variant=spy, variant=spy)",
		"ketama(servers=h1:11211:0)", "ketama(servers=h1:x:1)", "ketama(servers=h1:1:1:1)", "ketama(servers=h1,h1)",
		"ketama(servers=h1,,h2)", "ketama(servers=@/nonexistent/pool.txt)", "ring(servers=)", "elasticsearch(routing_partition_size=2, partition_size=2)",
		"elasticsearch(number_of_routing_shards=x)", "cassandra(,num_tokens=4)"} {
		if _, err := Lookup(bad); err == nil {
			t.Errorf("Lookup(%q) succeeded; want an error", bad)
		}
	}
}

func baseName(spec string) string {
	if i := strings.IndexAny(spec, "(:"); i >= 0 {
		return spec[:i]
	}
	return spec
}

func TestNoDestination(t *testing.T) {
	null := []shardkey.Value{{}}
	for _, spec := range []string{"citus", "elasticsearch", "yugabyte", "vitess", "vitess-numeric", "vitess-reverse-bits"} {
		if _, err := mustLookup(t, spec).Point(null); !errors.Is(err, ErrNoDestination) {
			t.Errorf("%s: NULL: %v, want ErrNoDestination", spec, err)
		}
	}
	if _, err := mustLookup(t, "vitess-numeric").Point([]shardkey.Value{shardkey.IntValue(-5)}); !errors.Is(err, ErrNoDestination) {
		t.Errorf("vitess-numeric(-5): %v, want ErrNoDestination", err)
	}
	// PostgreSQL puts NULL partition keys in remainder 0.
	if p, err := mustLookup(t, "postgres").Point(null); err != nil || p != 0 {
		t.Errorf("postgres NULL point = %d, %v; want 0", p, err)
	}
	// Vitess parses text for the hash vindex, with whitespace, no sign.
	e := mustLookup(t, "vitess")
	want, _ := e.Hash([]shardkey.Value{shardkey.IntValue(42)})
	for _, s := range []string{"42", " 42\t"} {
		if got, err := e.Hash([]shardkey.Value{shardkey.TextValue(s)}); err != nil || got != want {
			t.Errorf("vitess(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, s := range []string{"-1", "4x", "", "18446744073709551616"} {
		if _, err := e.Hash([]shardkey.Value{shardkey.TextValue(s)}); !errors.Is(err, ErrNoDestination) {
			t.Errorf("vitess(%q): %v, want ErrNoDestination", s, err)
		}
	}
	if _, err := mustLookup(t, "vitess-unicode-loose-md5").Point([]shardkey.Value{{Type: shardkey.Bytes, Str: "\xff"}}); err == nil {
		t.Error("unicode_loose_md5 accepted invalid UTF-8")
	}
}

// TestLookupForms checks that the colon form and the older option names
// are aliases of the parenthesised form, and that servers= reads a file.
func TestLookupForms(t *testing.T) {
	for alias, want := range map[string]string{
		"cassandra:num_tokens=8,seed=3":                        "cassandra(num_tokens=8, seed=3)",
		"elasticsearch:function=mod":                           "elasticsearch(function=modulo)",
		"elasticsearch:routing_num_shards=16,partition_size=2": "elasticsearch(number_of_routing_shards=16, routing_partition_size=2)",
		" elasticsearch( function = modulo ) ":                 "elasticsearch(function=modulo)",
		"ketama:servers=h1:11211:600,h2:11211:300,variant=spy": "ketama(variant=spy, servers=h1:11211:600,h2:11211:300)",
		"ring()": "ring",
	} {
		if got := mustLookup(t, alias).Name(); got != want {
			t.Errorf("Lookup(%q).Name() = %q; want %q", alias, got, want)
		}
	}
	path := filepath.Join(t.TempDir(), "pool.txt")
	if err := os.WriteFile(path, []byte("# memcached pool\n10.0.1.1:11211 600\n10.0.1.2:11211:300  # comment\n\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e := mustLookup(t, "ketama(servers=@"+path+")")
	if got := e.(Pool).ServerNames(); strings.Join(got, " ") != "10.0.1.1:11211 10.0.1.2:11211" {
		t.Errorf("servers from file: %v", got)
	}
	if _, err := e.Layout(3); err == nil {
		t.Error("a pool of 2 servers laid out as 3")
	}
}

// FuzzLookup checks that any engine spec is read or refused without a
// panic, and that an engine's Name reads back as the same engine.
func FuzzLookup(f *testing.F) {
	for _, s := range append(fuzzSpecs, "ketama(servers=h1:11211:600,h2:11211:300)", "ring(servers=a,b:2:3)",
		"cassandra:num_tokens=8,seed=3", "elasticsearch(function=modulo", "x(", "(", ":", "ketama(servers=@)") {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		if strings.Contains(spec, "@") {
			return // servers=@FILE reads files
		}
		e, err := Lookup(spec)
		if err != nil {
			return
		}
		back, err := Lookup(e.Name())
		if err != nil || back.Name() != e.Name() {
			t.Fatalf("Lookup(%q).Name() = %q, which reads back as %v, %v", spec, e.Name(), back, err)
		}
	})
}
