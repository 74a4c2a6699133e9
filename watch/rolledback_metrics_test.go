package watch

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestMetricsRolledBack: the rolled-back transactions' cross-shard share
// is a gauge of its own for a design whose window has some, and absent
// (not 0, which would read as "none crossed") for one whose window has
// none.
func TestMetricsRolledBack(t *testing.T) {
	rb := 0.4
	r := &Report{Seconds: 10, Designs: []DesignWindow{
		{Key: "hash(a)", CrossShardTxnFraction: 0.25, RolledBackCrossShardFraction: &rb},
		{Key: "hash(b)", CrossShardTxnFraction: 0.5},
	}}
	m := NewMetrics()
	m.Update(r)
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "http://127.0.0.1/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	scrape := string(body)
	if want := `shardkey_rolled_back_cross_shard_txn_ratio{design="hash(a)"} 0.4`; !strings.Contains(scrape, want) {
		t.Errorf("scrape lacks %q:\n%s", want, scrape)
	}
	if bad := `shardkey_rolled_back_cross_shard_txn_ratio{design="hash(b)"}`; strings.Contains(scrape, bad) {
		t.Errorf("scrape has %q for a window without rolled-back transactions:\n%s", bad, scrape)
	}
}
