package advisor

import (
	"strings"
	"testing"
)

// TestPackingNote: with the whales split, 45,714 units/s at 800 a shard
// need at least ceil(57.14) = 58 shards whatever the placement; when
// hashing needs 146 (over 1.5 times that), the headline names the gap.
// Without a split fix, or when hashing needs under 1.5 times the bound
// (86 < 87), nothing is said.
func TestPackingNote(t *testing.T) {
	cp := func(applied string, need int) *Capacity {
		return &Capacity{Capacity: 800, Applied: []string{applied}, After: &Nums{WorkPerS: 45714}, ShardsNeeded: need}
	}
	if got := packingNote(cp("split the 10 heaviest values of workspace_id", 146)); !strings.Contains(got, "no placement fits on fewer than 58 (45,714 units/s") || !strings.Contains(got, "the rest of the 146 is values colliding under hash") {
		t.Errorf("packingNote = %q; want the bound 58 and the 146", got)
	}
	if got := packingNote(cp("isolate workspace_id = 1", 146)); got != "" {
		t.Errorf("without a split: %q; want nothing", got)
	}
	if got := packingNote(cp("split workspace_id = 1", 86)); got != "" {
		t.Errorf("86 shards against a bound of 58: %q; want nothing", got)
	}
	if got := packingNote(cp("split workspace_id = 1", 87)); got == "" {
		t.Error("87 shards against a bound of 58 (1.5 times): want the note")
	}
}
