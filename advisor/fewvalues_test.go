package advisor

import (
	"testing"

	"github.com/shardkey/shardkey/sim"
)

// TestFewValuesNoWhale: on the requests basis (no row sample), a share
// resting on statements that name one value, or so few values that an
// even spread over them alone would pass the whale threshold, is no
// whale claim. By hand, on 8 shards the threshold is 1.5/8 = 18.75%:
// one value named by 9 statements has the exact lower bound
// 0.025^(1/9) = 0.664, a whale by the interval alone, but the spread is
// unknown; 3 values (1/3 = 33% each if even) likewise; 6 values (1/6 =
// 16.7%, under 18.75%) leave the interval to decide: 90% of 100
// statements is a whale. A row sample of one value is measured: a whale.
func TestFewValuesNoWhale(t *testing.T) {
	top := func(k int) []sim.TopValue { return make([]sim.TopValue, k) }
	for _, c := range []struct {
		p    PartitionValue
		want int
	}{
		{PartitionValue{Measure: "requests", Share: 1, Observations: 9, top: top(1)}, unproven},
		{PartitionValue{Measure: "requests", Share: 0.83, Observations: 4, top: top(3)}, unproven},
		{PartitionValue{Measure: "requests", Share: 0.9, Observations: 100, top: top(6)}, aWhale},
		{PartitionValue{Measure: "rows", Share: 1, Observations: 100, top: top(1)}, aWhale},
	} {
		if whaleVerdict(1, 9, 8) != aWhale {
			t.Fatal("the interval alone calls 9 of 9 a whale on 8 shards")
		}
		if got := c.p.verdict(8); got != c.want {
			t.Errorf("%s share %v on %d obs, %d values: verdict %d; want %d", c.p.Measure, c.p.Share, c.p.Observations, len(c.p.top), got, c.want)
		}
	}
}
