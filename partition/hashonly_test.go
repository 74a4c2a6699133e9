package partition

import "testing"

// TestHashOnly: the engines that cannot place a range key, by their names
// as Engine.Name gives them, options included; shardkey's own functions
// and the engines that can range-partition (PostgreSQL declarative
// partitioning, Vitess's numeric vindex, YugabyteDB) say nothing.
func TestHashOnly(t *testing.T) {
	for name, want := range map[string]bool{
		"redis":                          true,
		"citus":                          true,
		"citus(shard_count=32)":          true,
		"citus(split_points=0)":          true,
		"elasticsearch(function=modulo)": true,
		"cassandra:num_tokens=4":         true,
		"generic":                        false,
		"postgres":                       false,
		"vitess-numeric":                 false,
		"yugabyte":                       false,
		"mongodb":                        false,
	} {
		if got := HashOnly(name) != ""; got != want {
			t.Errorf("HashOnly(%q) != \"\" is %v; want %v", name, got, want)
		}
	}
}
