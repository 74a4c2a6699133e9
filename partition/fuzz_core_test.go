package partition

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
)

// specsCore are the engines of core.go the fuzz test runs.
var specsCore = []string{"generic", "blake2b", "jump", "ring", "ring:vnodes=1"}

// FuzzEngineCore checks the engines of core.go on arbitrary keys: no
// panic, no error (they place every key, NULL included), the same key gives
// the same point, hash and shard, shards are in 0..n-1, Int64 keys agree
// with PointInt64, and a grown layout keeps shards in range.
func FuzzEngineCore(f *testing.F) {
	f.Add(uint8(3), int64(42), 1.5, "user_1", uint8(7), uint16(8))
	f.Add(uint8(0), int64(0), math.NaN(), "", uint8(0), uint16(0))
	f.Add(uint8(8), int64(math.MinInt64), math.Inf(-1), "a|b", uint8(10), uint16(1000))
	engines := make([]Engine, len(specsCore))
	for i, spec := range specsCore {
		engines[i] = mustLookupTB(f, spec)
	}
	layouts := map[string]Layout{}
	f.Fuzz(func(t *testing.T, typ uint8, i int64, fl float64, s string, typ2 uint8, n uint16) {
		shards := int(n%256) + 1
		keys := [][]shardkey.Value{
			{fuzzValueB(typ, i, fl, s)},
			{fuzzValueB(typ, i, fl, s), fuzzValueB(typ2, ^i, -fl, strings.ToUpper(s))},
		}
		for _, e := range engines {
			k := e.Name() + "/" + strconv.Itoa(shards)
			l, ok := layouts[k]
			if !ok {
				var err error
				if l, err = e.Layout(shards); err != nil {
					t.Fatalf("%s.Layout(%d): %v", e.Name(), shards, err)
				}
				layouts[k] = l
			}
			if l.Shards() != shards {
				t.Fatalf("%s: Shards() = %d, want %d", e.Name(), l.Shards(), shards)
			}
			for _, key := range keys {
				p, err := e.Point(key)
				h, herr := e.Hash(key)
				if err != nil || herr != nil {
					t.Fatalf("%s(%v): Point error %v, Hash error %v", e.Name(), key, err, herr)
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
				if p, _ := e.Point([]shardkey.Value{shardkey.IntValue(i)}); ip.PointInt64(i) != p {
					t.Fatalf("%s: PointInt64(%d) = %d, Point = %d", e.Name(), i, ip.PointInt64(i), p)
				}
			}
			if g, ok := e.(Grower); ok {
				gl, err := g.Grow(l, shards+1)
				if err != nil {
					t.Fatalf("%s: Grow(%d -> %d): %v", e.Name(), shards, shards+1, err)
				}
				p, _ := e.Point(keys[0])
				if sh := gl.Shard(p); gl.Shards() != shards+1 || sh < 0 || sh > shards {
					t.Fatalf("%s: grown layout: shard %d of %d", e.Name(), sh, gl.Shards())
				}
			}
		}
	})
}

// TestFuzzCoversEveryEngine fails when a registered engine is in none of
// the fuzz tests' spec lists (FuzzEngineCore, FuzzEngineA, FuzzEngineB).
func TestFuzzCoversEveryEngine(t *testing.T) {
	fuzzed := map[string]bool{}
	for _, list := range [][]string{specsCore, specsA, specsB} {
		for _, spec := range list {
			fuzzed[specName(spec)] = true
		}
	}
	for _, name := range Names() {
		if !fuzzed[name] {
			t.Errorf("engine %s is not fuzzed: add it to a specs list", name)
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
