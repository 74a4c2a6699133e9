package advisor

import (
	"strings"
	"testing"
)

// TestNotMonotone: why a smaller shard count can fit where a larger one
// does not is said for the design's placement: ranges hold whole values
// (10 warehouses on 6 to 9 shards: one range holds 2), hash placement
// moves values with the count (fresh-clone review: a range design's
// search said "hash placement is not monotone").
func TestNotMonotone(t *testing.T) {
	for key, want := range map[string]string{
		"range(w_id)": "ranges hold whole key values",
		"customer:range(c_w_id); item:replicate; warehouse:range(w_id)": "ranges hold whole key values",
		"hash(w_id)":               "hash placement is not monotone",
		"range(a); orders:hash(b)": "hash placement is not monotone",
		"isolate(hash(a), top=3)":  "hash placement is not monotone",
	} {
		if got := notMonotone(&Capacity{AfterKey: key}); !strings.HasPrefix(got, want) {
			t.Errorf("notMonotone(%s) = %q; want %q...", key, got, want)
		}
	}
}
