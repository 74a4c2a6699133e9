package partition

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/shardkey/shardkey"
)

// fuzzSpecs are the engine specs FuzzEngine runs: every engine, with the
// options that change its code path.
var fuzzSpecs = []string{
	"generic", "blake2b", "jump", "ring", "ring(vnodes=1)",
	"redis", "cassandra", "mongodb", "kafka", "kafka-librdkafka", "ketama", "ketama(variant=spy)",
	"postgres", "citus", "citus(shard_count=32)",
	"elasticsearch", "elasticsearch(function=modulo)", "elasticsearch(routing_partition_size=3)",
	"elasticsearch(number_of_routing_shards=1024, routing_partition_size=2)",
	"yugabyte",
	"vitess", "vitess-xxhash", "vitess-binary-md5", "vitess-unicode-loose-md5",
	"vitess-unicode-loose-xxhash", "vitess-numeric", "vitess-reverse-bits",
	"vitess-multicol", "vitess-multicol(column_vindex=xxhash,numeric, column_bytes=2)",
	"cockroachdb", "cockroachdb(generation=1)", "cockroachdb(generation=2)",
}

// placesEveryKey names the engines that place every key, NULL included
// (shardkey's own functions): any error from them fails the fuzz test.
var placesEveryKey = map[string]bool{"generic": true, "blake2b": true, "jump": true, "ring": true}

// layoutCache memoises layouts: building one per fuzz input would dominate
// the run.
var layoutCache sync.Map // "name/n" -> Layout

func cachedLayout(e Engine, n int) (Layout, error) {
	k := e.Name() + "/" + strconv.Itoa(n)
	if l, ok := layoutCache.Load(k); ok {
		return l.(Layout), nil
	}
	l, err := e.Layout(n)
	if err == nil {
		layoutCache.Store(k, l)
	}
	return l, err
}

// fuzzValue builds a value of any shardkey type from fuzz inputs.
func fuzzValue(typ uint8, i int64, f float64, s string) shardkey.Value {
	switch t := shardkey.Type(typ % 15); t {
	case shardkey.Null:
		return shardkey.Value{}
	case shardkey.Int16:
		return shardkey.Value{Type: t, Int: int64(int16(i))}
	case shardkey.Int32:
		return shardkey.Value{Type: t, Int: int64(int32(i))}
	case shardkey.Int64, shardkey.Uint64, shardkey.Timestamp:
		return shardkey.Value{Type: t, Int: i}
	case shardkey.Float32, shardkey.Float64:
		return shardkey.Value{Type: t, Float: f}
	case shardkey.UUID:
		var b [16]byte
		copy(b[:], s)
		return shardkey.Value{Type: t, Str: string(b[:])}
	case shardkey.ObjectID:
		var b [12]byte
		copy(b[:], s)
		return shardkey.Value{Type: t, Str: string(b[:])}
	case shardkey.Date:
		return shardkey.Value{Type: t, Int: i}
	case shardkey.Bool:
		return shardkey.Value{Type: t, Int: i & 1}
	default: // Text, Bytes, and ExtJSON of arbitrary (often malformed) BSON bytes
		return shardkey.Value{Type: t, Str: s}
	}
}

// FuzzEngine checks every engine on arbitrary one- and two-column keys:
// no panic; Point and Hash fail together, and only with ErrNoDestination
// or an error naming the engine's system (never for the engines that place every
// key); the same key gives the same point, hash and shard; shards are in
// 0..n-1; Int64 keys agree with the PointInt64 fast path; a grown layout
// keeps shards in range.
func FuzzEngine(f *testing.F) {
	f.Add(uint8(3), int64(42), 1.5, "user_1", uint8(7), uint16(8))
	f.Add(uint8(7), int64(-1), math.NaN(), "{user1000}.following", uint8(0), uint16(0))
	f.Add(uint8(8), int64(math.MinInt64), math.Inf(1), "\xff\xfe", uint8(9), uint16(16))
	f.Add(uint8(0), int64(0), 0.0, "", uint8(10), uint16(2))
	f.Add(uint8(7), int64(-1), math.NaN(), "Tést ", uint8(0), uint16(3))
	f.Add(uint8(4), int64(-1), math.Inf(1), " 18446744073709551615 ", uint8(2), uint16(1000))
	f.Add(uint8(8), int64(math.MinInt64), math.Inf(-1), "a|b", uint8(10), uint16(1000))
	engines := make([]Engine, len(fuzzSpecs))
	for i, spec := range fuzzSpecs {
		engines[i] = mustLookup(f, spec)
	}
	f.Fuzz(func(t *testing.T, typ uint8, i int64, fl float64, s string, typ2 uint8, n uint16) {
		shards := int(n%256) + 1
		keys := [][]shardkey.Value{
			{fuzzValue(typ, i, fl, s)},
			{fuzzValue(typ, i, fl, s), fuzzValue(typ2, ^i, -fl, strings.ToUpper(s)+"x")},
		}
		for _, e := range engines {
			name := baseName(e.Name())
			l, err := cachedLayout(e, shards)
			if err != nil {
				// Only a fixed configuration refuses a shard count
				// (Elasticsearch number_of_routing_shards=1024 and 3 shards).
				if placesEveryKey[name] || !strings.Contains(err.Error(), "not a multiple") {
					t.Fatalf("%s.Layout(%d): %v", e.Name(), shards, err)
				}
				continue
			}
			if l.Shards() != shards {
				t.Fatalf("%s: Shards() = %d, want %d", e.Name(), l.Shards(), shards)
			}
			for _, key := range keys {
				p, err := e.Point(key)
				h, herr := e.Hash(key)
				if (err == nil) != (herr == nil) {
					t.Fatalf("%s(%v): Point error %v, Hash error %v", e.Name(), key, err, herr)
				}
				if err != nil {
					if placesEveryKey[name] {
						t.Fatalf("%s(%v): %v; this engine places every key", e.Name(), key, err)
					}
					if !errors.Is(err, ErrNoDestination) && !strings.HasPrefix(err.Error(), strings.SplitN(name, "-", 2)[0]) {
						t.Fatalf("%s: error %q does not name the engine", e.Name(), err)
					}
					continue
				}
				p2, _ := e.Point(key)
				h2, _ := e.Hash(key)
				if p != p2 || h != h2 {
					t.Fatalf("%s(%v): not deterministic", e.Name(), key)
				}
				if sh := l.Shard(p); sh < 0 || sh >= shards || l.Shard(p) != sh {
					t.Fatalf("%s(%v): shard %d of %d", e.Name(), key, sh, shards)
				}
			}
			if ip, ok := e.(Int64Pointer); ok {
				if p, err := e.Point([]shardkey.Value{shardkey.IntValue(i)}); err == nil && ip.PointInt64(i) != p {
					t.Fatalf("%s: PointInt64(%d) = %d, Point = %d", e.Name(), i, ip.PointInt64(i), p)
				}
			}
			if g, ok := e.(Grower); ok {
				gl, err := g.Grow(l, shards+1)
				if err != nil {
					if placesEveryKey[name] {
						t.Fatalf("%s: Grow(%d -> %d): %v", e.Name(), shards, shards+1, err)
					}
					continue // e.g. Vitess cannot grow past one-ksid ranges
				}
				p, err := e.Point(keys[0])
				if err != nil {
					continue
				}
				if sh := gl.Shard(p); gl.Shards() != shards+1 || sh < 0 || sh > shards {
					t.Fatalf("%s: grown layout: shard %d of %d", e.Name(), sh, gl.Shards())
				}
			}
		}
	})
}

// TestFuzzCoversEveryEngine fails when a registered engine is not in
// fuzzSpecs.
func TestFuzzCoversEveryEngine(t *testing.T) {
	fuzzed := map[string]bool{}
	for _, spec := range fuzzSpecs {
		fuzzed[baseName(spec)] = true
	}
	for _, name := range Names() {
		if !fuzzed[name] {
			t.Errorf("engine %s is not fuzzed: add it to fuzzSpecs", name)
		}
	}
}

// FuzzFormatInt64 checks the decimal fast path against strconv.
func FuzzFormatInt64(f *testing.F) {
	for _, v := range []int64{0, 9, 10, 99, 100, -1, -10, -100, 1000000, math.MaxInt64, math.MinInt64} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v int64) {
		var buf [20]byte
		if got, want := string(formatInt64(&buf, v)), strconv.FormatInt(v, 10); got != want {
			t.Fatalf("formatInt64(%d) = %q; want %q", v, got, want)
		}
	})
}
