package main

import (
	"strings"
	"testing"
)

// TestRedisTxnsSpanSlots: under Redis Cluster a transaction whose keys
// lie in several hash slots is not committed on several nodes: Redis
// refuses such a MULTI/EXEC with CROSSSLOT (it runs as separate
// commands, unless the keys share a hash tag). TPC-C's warehouse design
// leaves 11% of transactions across slots (Payment's remote customer,
// New-Order's remote stock); the advice must say what that costs there,
// not "each commits on several" (fresh-clone review).
func TestRedisTxnsSpanSlots(t *testing.T) {
	code, out, errs := runCmd(t, "", "advise", "--workload", "../../scenario/benchmarks/tpcc.yaml", "--engine", "redis", "--slots", "16384", "--nodes", "8", "--bootstrap", "0", "--sweep", "")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	flat := strings.Join(strings.Fields(out), " ")
	for _, want := range []string{
		"of transactions span several hash slots, which Redis Cluster refuses as one MULTI/EXEC (CROSSSLOT)",
		"expensive under this key: every operation asks one slot, but 11% of transactions span several slots (Redis Cluster refuses such a MULTI/EXEC: CROSSSLOT)",
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("advice lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(flat, "(each commits on several)") {
		t.Errorf("advice says Redis transactions commit on several shards:\n%s", out)
	}
}
