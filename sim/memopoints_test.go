package sim

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"golang.org/x/crypto/blake2b"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/partition"
)

// TestMemoHashPoints: the growth figures' hash points of a memoised key
// (blake2b, read from the memo's table by each sampled row's slot) are
// seed 000's h(*parts) computed here from BLAKE2b itself (8-byte digest
// of "|".join(parts), big-endian), summed by point over the sampled rows
// (every row: fewer than rebalanceSample), before and after the rows are
// routed (the memo empty, then filled), for one and two key columns.
func TestMemoHashPoints(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	const n = 4000
	tb := &shardkey.Table{Name: "orders", Rows: n}
	cust := &shardkey.Column{Name: "customer_id", Type: shardkey.Int64}
	month := &shardkey.Column{Name: "order_month", Type: shardkey.Text}
	for i := 0; i < n; i++ {
		cust.Ints = append(cust.Ints, int64(r.IntN(500))*3)
		month.Strs = append(month.Strs, fmt.Sprintf("2024-%02d", 1+r.IntN(12)))
		tb.Weights = append(tb.Weights, float64(1+r.IntN(9)))
	}
	tb.Columns = []*shardkey.Column{cust, month}
	seed := func(parts ...string) uint64 {
		h, _ := blake2b.New(8, nil)
		for i, p := range parts {
			if i > 0 {
				h.Write([]byte("|"))
			}
			h.Write([]byte(p))
		}
		return binary.BigEndian.Uint64(h.Sum(nil))
	}
	for _, key := range []string{"hash(customer_id)", "hash(customer_id, order_month)"} {
		sum := map[uint64]float64{}
		for i := 0; i < n; i++ {
			p := seed(fmt.Sprint(cust.Ints[i]))
			if key != "hash(customer_id)" {
				p = seed(fmt.Sprint(cust.Ints[i]), month.Strs[i])
			}
			sum[p] += tb.Weights[i]
		}
		var want []pointWeight
		for p, x := range sum {
			want = append(want, pointWeight{p, x})
		}
		slices.SortFunc(want, func(a, b pointWeight) int {
			if a.p < b.p {
				return -1
			}
			return 1
		})
		for _, routed := range []bool{false, true} {
			fresh := *tb // nothing memoised from the last round
			fw := &shardkey.Workload{Tables: []*shardkey.Table{&fresh}}
			d, _ := shardkey.ParseDesign(key)
			s, err := Compile(fw, d, Options{Shards: 64, Engine: partition.Blake2b{}})
			if err != nil {
				t.Fatal(err)
			}
			tk := s.tables[0]
			if _, ok := tk.eng.(*memoEngine); !ok {
				t.Fatalf("%s: not memoised", key)
			}
			if routed {
				if _, err := Run(fw, s, 2); err != nil {
					t.Fatal(err)
				}
			}
			got := hashPoints(&fresh, tk)
			if !slices.Equal(got, want) {
				t.Errorf("%s, rows routed %v: %d points, want %d (or points or sums differ)", key, routed, len(got), len(want))
			}
		}
	}
}
