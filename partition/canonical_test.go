package partition

import (
	"math/rand/v2"
	"testing"

	"github.com/shardkey/shardkey"
)

// TestPointCanonicalRow: for every column type, with NULLs, one column or
// several, the generic engine's point of a row encoded straight from its
// columns equals Point of the row's values (the row fast path cannot
// place a row elsewhere than the value path does).
func TestPointCanonicalRow(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	const n = 300
	types := []shardkey.Type{shardkey.Int16, shardkey.Int32, shardkey.Int64, shardkey.Uint64, shardkey.Timestamp,
		shardkey.Float32, shardkey.Float64, shardkey.Text, shardkey.Bytes, shardkey.UUID}
	var cols []*shardkey.Column
	for _, ty := range types {
		c := &shardkey.Column{Name: ty.String(), Type: ty}
		for i := 0; i < n; i++ {
			var v shardkey.Value
			switch {
			case r.IntN(10) == 0:
				v = shardkey.Value{} // NULL
			case ty == shardkey.Float32 || ty == shardkey.Float64:
				v = shardkey.Value{Type: ty, Float: r.NormFloat64()}
			case ty == shardkey.Text || ty == shardkey.Bytes || ty == shardkey.UUID:
				v = shardkey.Value{Type: ty, Str: string(rune('a'+r.IntN(26))) + string(make([]byte, r.IntN(3)))}
			default:
				v = shardkey.Value{Type: ty, Int: r.Int64N(1000) - 500}
			}
			if err := c.Append(v); err != nil {
				t.Fatal(err)
			}
		}
		cols = append(cols, c)
	}
	var g Generic
	var buf []byte
	for trial := 0; trial < 200; trial++ {
		k := 1 + r.IntN(3)
		pick := make([]*shardkey.Column, k)
		for j := range pick {
			pick[j] = cols[r.IntN(len(cols))]
		}
		for i := 0; i < n; i++ {
			key := make([]shardkey.Value, k)
			for j, c := range pick {
				key[j] = c.Value(i)
			}
			want, err := g.Point(key)
			if err != nil {
				t.Fatal(err)
			}
			buf = AppendCanonicalRow(buf[:0], pick, i)
			if got := g.PointCanonical(buf); got != want {
				t.Fatalf("row %d of %v: PointCanonical %#x, Point %#x", i, key, got, want)
			}
		}
	}
}
