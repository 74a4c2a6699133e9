package partition

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/shardkey/shardkey"
)

// specsA are the engine specs of engines_a the fuzz test and benchmarks run.
var specsA = []string{"redis", "cassandra", "mongodb", "kafka", "kafka-librdkafka", "ketama", "ketama:variant=spy"}

// layoutCacheA memoises layouts: building one per fuzz input would dominate
// the run.
var layoutCacheA sync.Map // "spec/n" -> Layout

func cachedLayoutA(t testing.TB, e Engine, n int) Layout {
	k := fmt.Sprintf("%s/%d", e.Name(), n)
	if l, ok := layoutCacheA.Load(k); ok {
		return l.(Layout)
	}
	l := layoutA(t, e, n)
	layoutCacheA.Store(k, l)
	return l
}

// fuzzValueA builds a value of the type chosen by typ from the fuzz inputs.
func fuzzValueA(typ uint8, i int64, f float64, s string) shardkey.Value {
	t := shardkey.Type(typ % 11) // Null..Timestamp
	v := shardkey.Value{Type: t}
	switch {
	case t.IsInt() || t == shardkey.Uint64:
		v.Int = i
		switch t {
		case shardkey.Int16:
			v.Int = int64(int16(i))
		case shardkey.Int32:
			v.Int = int64(int32(i))
		}
	case t == shardkey.Float32 || t == shardkey.Float64:
		v.Float = f
	case t == shardkey.UUID:
		v.Str = (s + strings.Repeat("\x00", 16))[:16]
	case t != shardkey.Null:
		v.Str = s
	}
	return v
}

// FuzzEngineA checks every engine of engines_a on arbitrary keys: no panic,
// the same key gives the same point, hash and shard, shards are in 0..n-1,
// Int64 keys agree with the PointInt64 fast path, and errors are either
// ErrNoDestination or a named refusal.
func FuzzEngineA(f *testing.F) {
	f.Add(uint8(3), int64(42), 1.5, "user_1", uint8(2), uint8(1), uint8(7))
	f.Add(uint8(7), int64(-1), math.NaN(), "{user1000}.following", uint8(0), uint8(0), uint8(0))
	f.Add(uint8(8), int64(math.MinInt64), math.Inf(1), "\xff\xfe", uint8(9), uint8(16), uint8(63))
	f.Add(uint8(0), int64(0), 0.0, "", uint8(10), uint8(2), uint8(24))
	engines := make([]Engine, len(specsA))
	for i, s := range specsA {
		engines[i] = engineA(f, s)
	}
	f.Fuzz(func(t *testing.T, typ uint8, i int64, fl float64, s string, typ2 uint8, cols uint8, nb uint8) {
		key := []shardkey.Value{fuzzValueA(typ, i, fl, s)}
		if cols%3 == 2 {
			key = append(key, fuzzValueA(typ2, ^i, -fl, strings.ToUpper(s)))
		}
		n := 1 + int(nb%64)
		for _, e := range engines {
			p, err := e.Point(key)
			h, herr := e.Hash(key)
			if (err == nil) != (herr == nil) {
				t.Fatalf("%s: Point error %v but Hash error %v for %v", e.Name(), err, herr, key)
			}
			if err != nil {
				if !errors.Is(err, ErrNoDestination) && !strings.HasPrefix(err.Error(), strings.Split(e.Name(), ":")[0]) {
					t.Fatalf("%s: error %q does not name the engine", e.Name(), err)
				}
				continue
			}
			p2, _ := e.Point(key)
			h2, _ := e.Hash(key)
			if p != p2 || h != h2 {
				t.Fatalf("%s: not deterministic for %v", e.Name(), key)
			}
			l := cachedLayoutA(t, e, n)
			sh := l.Shard(p)
			if sh < 0 || sh >= n || l.Shards() != n {
				t.Fatalf("%s: shard %d of %d for %v", e.Name(), sh, n, key)
			}
			if l.Shard(p) != sh {
				t.Fatalf("%s: Shard not deterministic", e.Name())
			}
			if len(key) == 1 && key[0].Type == shardkey.Int64 {
				if ip, ok := e.(Int64Pointer); ok && ip.PointInt64(key[0].Int) != p {
					t.Fatalf("%s: PointInt64(%d) != Point", e.Name(), key[0].Int)
				}
			}
		}
	})
}
