package input

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/shardkey/shardkey"
)

// BenchmarkFastRow parses 200,000 lines of seed 000's row file
// (customer_id, order_id, order_month, weight as Python's repr) with
// fastRow, the weight read where it starts (exactFloatPrefix) against
// its field's end found first (the former path, which a separator that
// can be part of a number still takes), side by side.
func BenchmarkFastRow(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	const n = 200_000
	lines := make([][]byte, n)
	for i := range lines {
		lines[i] = fmt.Appendf(nil, "%d,%d,2024-%02d,%v", r.IntN(1_000_000), 100001+2*i, 1+i*12/n, r.Float64()*1e-6)
	}
	for _, c := range []struct {
		name    string
		numSafe bool
	}{{"field end first", false}, {"weight in place", true}} {
		b.Run(c.name, func(b *testing.B) {
			cc := &csvCols{cols: []*shardkey.Column{
				{Name: "customer_id", Type: shardkey.Int64, Ints: make([]int64, n)},
				{Name: "order_id", Type: shardkey.Int64, Ints: make([]int64, n)},
				{Name: "order_month", Type: shardkey.Text, Strs: make([]string, n)},
				nil,
			}, weights: make([]float64, n), total: n, numSafe: c.numSafe}
			own := func(_ int, s string) string { return s }
			for b.Loop() {
				for i, l := range lines {
					if !fastRow(l, i, cc, ',', 3, own) {
						b.Fatalf("line %q not parsed", l)
					}
				}
			}
		})
	}
}
