package partition

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"golang.org/x/crypto/blake2b"

	"github.com/shardkey/shardkey"
)

// TestBlake2bPointer: the pointer with scratch of its own (NewPointer, for
// a memo's fill) gives the engine's points, seed 000's h(*parts) before
// the modulo. The wanted numbers are Python's, computed with the seed's
// own definition:
//
//	int.from_bytes(hashlib.blake2b("|".join(map(str, parts)).encode(),
//	               digest_size=8).digest(), "big")
func TestBlake2bPointer(t *testing.T) {
	iv := shardkey.IntValue
	for _, c := range []struct {
		key  []shardkey.Value
		want uint64
	}{
		{[]shardkey.Value{iv(0)}, 9523843951405948789},
		{[]shardkey.Value{iv(7)}, 16667848380713045890},
		{[]shardkey.Value{iv(-1)}, 2258336317711253734},
		{[]shardkey.Value{iv(100001)}, 13956441190575518077},
		{[]shardkey.Value{iv(4100238)}, 14999202172856932304},
		{[]shardkey.Value{iv(math.MinInt64)}, 11762576072763057170},
		{[]shardkey.Value{iv(math.MaxInt64)}, 14040218526631633209},
		{[]shardkey.Value{iv(999)}, 5764058539754489268},
		{[]shardkey.Value{iv(1000)}, 7575330518282793474},
		{[]shardkey.Value{iv(528059), shardkey.TextValue("2024-07")}, 9934446630411188701},
		{[]shardkey.Value{shardkey.TextValue("2023-05")}, 5984993316154514371},
	} {
		eng, _ := Blake2b{}.Point(c.key)
		pt := Blake2b{}.NewPointer()
		own, err := pt.Point(c.key)
		if eng != c.want || own != c.want || err != nil {
			t.Errorf("%v: engine %d, pointer %d (%v); want %d", c.key, eng, own, err, c.want)
		}
		if len(c.key) == 1 && c.key[0].Type == shardkey.Int64 {
			// After another value (the text written afresh) and on its own.
			ip := Blake2b{}.NewPointer().(Int64Pointer)
			ip.PointInt64(c.key[0].Int - 1)
			if got := ip.PointInt64(c.key[0].Int); got != c.want {
				t.Errorf("PointInt64(%d) after %d = %d; want %d", c.key[0].Int, c.key[0].Int-1, got, c.want)
			}
		}
	}
}

// TestBlake2bPointInt64Runs: PointInt64 over runs of values, as a fill
// walks a column (upwards by small steps, where the text is the last one's
// plus the step: carries through 9s, a new leading digit), and across
// zero, downwards and by big jumps (formatted afresh), equals the BLAKE2b
// (8-byte digest) of strconv's decimal text, computed here.
func TestBlake2bPointInt64Runs(t *testing.T) {
	h, err := blake2b.New(8, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := func(v int64) uint64 {
		h.Reset()
		h.Write([]byte(strconv.FormatInt(v, 10)))
		return binary.BigEndian.Uint64(h.Sum(nil))
	}
	ip := Blake2b{}.NewPointer().(Int64Pointer)
	check := func(v int64) {
		t.Helper()
		if got := ip.PointInt64(v); got != want(v) {
			t.Fatalf("PointInt64(%d) = %d; want %d (the hash of %q)", v, got, want(v), strconv.FormatInt(v, 10))
		}
	}
	for _, v := range []int64{
		0, 0, 1, 9, 10, 11, 99, 100, 198, 297, 999, 1000, 1099, 1100, 9999, 10098,
		999999, 1000000, 1000001, 999, 5, -5, -3, -1, 0, 3, 102, 202, 1 << 40, 1<<40 + 99,
		math.MaxInt64 - 100, math.MaxInt64 - 99, math.MaxInt64 - 1, math.MaxInt64, math.MinInt64, math.MinInt64 + 1, 0,
	} {
		check(v)
	}
	// Random upward walks with steps of 0 to 130 (some past the 99 that
	// the text is added to).
	rng := rand.New(rand.NewPCG(5, 6))
	for range 20 {
		v := rng.Int64N(1 << 30)
		if rng.IntN(4) == 0 {
			v = rng.Int64N(1000)
		}
		for range 2000 {
			check(v)
			v += rng.Int64N(131)
		}
	}
}
