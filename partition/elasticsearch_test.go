package partition

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
)

func TestElasticsearch_Grow(t *testing.T) {
	e := mustLookup(t, "elasticsearch")
	// A 3-shard index has 768 routing shards; _split to 6 keeps them, so
	// shard s splits into 2s and 2s+1.
	l3, _ := e.Layout(3)
	l6, err := e.(Grower).Grow(l3, 6)
	if err != nil {
		t.Fatal(err)
	}
	if r := l6.(ESLayout).RoutingShards(); r != 768 {
		t.Errorf("split kept %d routing shards, want 768", r)
	}
	for _, p := range randomPoints(10000, 1<<32) {
		if a, b := l3.Shard(p), l6.Shard(p); b/2 != a {
			t.Fatalf("point %d: shard %d split into %d", p, a, b)
		}
	}
}

func checkElasticsearchVectors(t *testing.T, file string) {
	checked := 0
	for i, m := range loadVectors(t, file).Vectors {
		v := vec{t, i, m}
		name := fmt.Sprintf("%d/%v", i, v.m["input"])
		// Every routing string is hashed as Java's UTF-16 code units.
		switch enc := v.opt("input_encoding"); {
		case strings.HasPrefix(enc, "Java String -> UTF-16"), strings.HasPrefix(enc, "_id or _routing string (UTF-16LE"),
			enc == "routing and id strings", enc == "utf8 string":
		default:
			t.Fatalf("%s: unknown input_encoding %q", name, enc)
		}
		switch v.opt("output_kind") {
		case "murmur3_x86_32_signed_int32":
			s := v.opt("input")
			want := v.int64("output")
			if got := ESMurmur3(s); int64(got) != want {
				t.Errorf("%s: murmur3 %d, want %d", name, got, want)
			}
			e := mustLookup(t, "elasticsearch")
			if h, _ := e.Hash([]shardkey.Value{shardkey.TextValue(s)}); h.Int != want {
				t.Errorf("%s: Hash %v, want %d", name, h, want)
			}
			for _, c := range perShardCount(t, v.m["default_routing_num_shards"]) {
				if got := ESRoutingShards(int(c[0])); int64(got) != c[1] {
					t.Errorf("%s: default routing shards for %d = %d, want %d", name, c[0], got, c[1])
				}
			}
			for field, spec := range map[string]string{
				"shard_classic_default_routing_num_shards": "elasticsearch",
				"shard_new_mod_function":                   "elasticsearch(function=modulo)",
			} {
				e := mustLookup(t, spec)
				for _, c := range perShardCount(t, v.m[field]) {
					if got := shardOf(t, e, []shardkey.Value{shardkey.TextValue(s)}, int(c[0])); int64(got) != c[1] {
						t.Errorf("%s: %s %d shards: %d, want %d", name, spec, c[0], got, c[1])
					}
				}
			}
		case "shard_id":
			st := v.m["index_settings"].(map[string]any)
			n := int(jsonInt(t, st["number_of_shards"]))
			var opts []string
			if strings.HasPrefix(v.opt("routing_function"), "new") {
				opts = append(opts, "function=modulo")
			} else {
				r := n
				if st["routing_num_shards"] != nil {
					r = int(jsonInt(t, st["routing_num_shards"]))
				}
				opts = append(opts, "number_of_routing_shards="+strconv.Itoa(r))
			}
			var key []shardkey.Value
			if in, ok := v.m["input"].(map[string]any); ok {
				opts = append(opts, "routing_partition_size="+strconv.FormatInt(jsonInt(t, st["routing_partition_size"]), 10))
				key = []shardkey.Value{shardkey.TextValue(in["_routing"].(string)), shardkey.TextValue(in["_id"].(string))}
			} else {
				key = []shardkey.Value{shardkey.TextValue(v.opt("input"))}
			}
			e := mustLookup(t, "elasticsearch("+strings.Join(opts, ", ")+")")
			if v.has("hash") {
				if h, _ := e.Hash(key); h.Int != v.int64("hash") {
					t.Errorf("%s: hash %v, want %d", name, h, v.int64("hash"))
				}
			}
			if got := shardOf(t, e, key, n); int64(got) != v.int64("output") {
				t.Errorf("%s: %s: shard %d, want %d", name, e.Name(), got, v.int64("output"))
			}
		default:
			t.Fatalf("%s: unknown output kind %q", name, v.opt("output_kind"))
		}
		checked++
	}
	t.Logf("%s: checked %d elasticsearch vectors", file, checked)
}
