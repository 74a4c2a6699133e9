package sim

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/shardkey/shardkey"
)

// TestMergeKeyWeightsIsStableSort: merging sorted lists gives what the
// standard library's stable sort gives for their concatenation (ties in
// list order, then in each list's order; the weights tell the tied
// entries apart).
func TestMergeKeyWeightsIsStableSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 200; trial++ {
		var lists [][]keyWeight
		var concat []keyWeight
		w := 0.0
		for l := 0; l < 2+rng.IntN(3); l++ {
			var list []keyWeight
			for i := 0; i < rng.IntN(20); i++ {
				w++
				list = append(list, keyWeight{[]shardkey.Value{shardkey.IntValue(int64(rng.IntN(5))), shardkey.IntValue(int64(rng.IntN(3)))}, w})
			}
			sortKeyWeights(list)
			lists = append(lists, list)
			concat = append(concat, list...)
		}
		want := slices.Clone(concat)
		sortKeyWeights(want)
		got := mergeKeyWeights(lists)
		if len(got) != len(want) {
			t.Fatalf("trial %d: %d entries; want %d", trial, len(got), len(want))
		}
		for i := range want {
			if got[i].w != want[i].w {
				t.Fatalf("trial %d: entry %d weight %v; want %v", trial, i, got[i].w, want[i].w)
			}
		}
	}
}

// TestSortedOrderSharedColumns: a table sharing another's columns with
// other weights (a bootstrap replicate) gets the same order, its own
// weights, ties in row order: rows with keys 3, 1, 3, 2 sort as rows 1,
// 3, 0, 2.
func TestSortedOrderSharedColumns(t *testing.T) {
	c := &shardkey.Column{Name: "k", Type: shardkey.Int64, Ints: []int64{3, 1, 3, 2}}
	a := &shardkey.Table{Name: "t", Rows: 4, Columns: []*shardkey.Column{c}, Weights: []float64{1, 2, 3, 4}}
	b := *a
	b.Weights = []float64{10, 20, 30, 40}
	for _, x := range []struct {
		t    *shardkey.Table
		want []float64
	}{{a, []float64{2, 4, 1, 3}}, {&b, []float64{20, 40, 10, 30}}} {
		var got []float64
		for _, kw := range sortedKeys(x.t, []int{0}) {
			got = append(got, kw.w)
		}
		if !slices.Equal(got, x.want) {
			t.Errorf("weights in key order %v; want %v", got, x.want)
		}
	}
	if sortedOrder(a, []int{0}, 0) != sortedOrder(&b, []int{0}, 0) {
		t.Error("a table sharing the columns sorted them again")
	}
}
