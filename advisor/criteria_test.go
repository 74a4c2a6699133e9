package advisor_test

import (
	"encoding/json"
	"testing"

	"github.com/shardkey/shardkey/advisor"
)

// TestCriteriaUnknownLargestNull: when nothing measures the largest
// partition (no rows, no statement binding the key to a value), its share
// and whether it is bounded are null in JSON: 0 and true would read as a
// key without whales. A measured share keeps its number.
func TestCriteriaUnknownLargestNull(t *testing.T) {
	read := func(c advisor.Criteria) map[string]any {
		t.Helper()
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	m := read(advisor.Criteria{LargestUnknown: true, Bounded: true, WorkRatio: 1.5})
	if v, ok := m["largest_partition_share"]; !ok || v != nil {
		t.Errorf("unknown: largest_partition_share %v (present %v); want null", v, ok)
	}
	if v, ok := m["bounded"]; !ok || v != nil {
		t.Errorf("unknown: bounded %v (present %v); want null", v, ok)
	}
	if m["work_ratio"] != 1.5 || m["largest_partition_unknown"] != true {
		t.Errorf("unknown: other fields lost: %v", m)
	}
	m = read(advisor.Criteria{LargestPartition: 0.25, Bounded: false})
	if m["largest_partition_share"] != 0.25 || m["bounded"] != false {
		t.Errorf("measured: %v; want share 0.25, bounded false", m)
	}
}
