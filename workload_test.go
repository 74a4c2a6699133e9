package shardkey

import (
	"strings"
	"testing"
)

// TestValidate_ShardLimits: a workload's shard count is checked against the
// one shared limit, so no command can score past it.
func TestValidate_ShardLimits(t *testing.T) {
	check := func(shards int, want string) {
		t.Helper()
		err := (&Workload{Shards: shards}).Validate()
		switch {
		case want == "" && err != nil:
			t.Errorf("Shards %d: %v, want no error", shards, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("Shards %d: %v, want an error containing %q", shards, err, want)
		}
	}
	check(0, "") // the command's default
	check(1, "")
	check(65536, "")
	check(65537, "shards: 65537 must be in 1..65536")
	check(-1, "shards: -1 must be in 1..65536")
}

// TestWorkloadCopyKeepsCatalog: the catalog is a field, so a copied
// workload (the shard-count sweep, the playground's per-request copy)
// keeps it.
func TestWorkloadCopyKeepsCatalog(t *testing.T) {
	w := &Workload{Catalog: &Catalog{Source: "db"}}
	c := *w
	if c.Catalog == nil || c.Catalog.Source != "db" {
		t.Fatalf("copy lost the catalog: %+v", c.Catalog)
	}
}
