package advisor_test

import (
	"strings"
	"testing"

	"github.com/shardkey/shardkey/advisor"
	"github.com/shardkey/shardkey/partition"
)

// TestLookupWordingByEngine: the fix for reads by a column that is not
// the key (a lookup table, lookup(phone)) and the reason a design with
// one gives are in Vitess's terms under Vitess (a lookup_unique vindex,
// the keyspace id) and in the standard ones elsewhere (a secondary index
// table keyed by phone, a global index), naming the system a fact comes
// from (Redis Cluster has no secondary indexes).
func TestLookupWordingByEngine(t *testing.T) {
	const lk = "hash(user_id); users:hash(user_id), lookup(phone)"
	for _, tc := range []struct {
		engine    string
		want      []string
		forbidden []string
	}{
		{"vitess-numeric",
			[]string{"a global secondary index; a Vitess lookup_unique vindex", "is a Vitess lookup_unique vindex (a global secondary index: a table from phone to the keyspace id"},
			nil},
		{"redis",
			[]string{"a secondary index table keyed by phone, a global index; Redis Cluster has no secondary indexes", "is a secondary index table keyed by phone, a global index (a table from phone to the row's key"},
			[]string{"vindex", "keyspace id", "Vitess"}},
		{"generic",
			[]string{"a secondary index table keyed by phone, a global index; design", "is a secondary index table keyed by phone, a global index (a table from phone to the row's key, sharded by phone; a value names one row):"},
			[]string{"vindex", "keyspace id", "Vitess", "Redis"}},
	} {
		t.Run(tc.engine, func(t *testing.T) {
			eng, err := partition.Lookup(tc.engine)
			if err != nil {
				t.Fatal(err)
			}
			adv, err := advisor.Recommend(lookupUsers(t, 2), advisor.Options{Shards: 8, Engine: eng, Keys: []string{"hash(user_id)", lk}})
			if err != nil {
				t.Fatal(err)
			}
			var text []string
			for _, as := range adv.Candidates {
				switch as.Key {
				case "hash(user_id)":
					for _, f := range as.Fixes {
						if f.Kind == "global-index" && f.Target == "by phone" {
							text = append(text, f.Text)
						}
					}
				case lk:
					text = append(text, as.Reasons...)
				}
			}
			all := strings.Join(text, "\n")
			for _, s := range tc.want {
				if !strings.Contains(all, s) {
					t.Errorf("no %q in:\n%s", s, all)
				}
			}
			for _, s := range tc.forbidden {
				if strings.Contains(all, s) {
					t.Errorf("%q in:\n%s", s, all)
				}
			}
		})
	}
}
