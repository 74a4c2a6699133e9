package partition

import (
	"testing"

	"github.com/shardkey/shardkey"
)

func checkJumpVectors(t *testing.T, file string) {
	checked := 0
	for i, m := range loadVectors(t, file).Vectors {
		v := vec{t, i, m}
		if v.opt("input_encoding") != "uint64 key" || v.opt("output_kind") != "bucket" {
			t.Fatalf("%d: unknown input_encoding %q or output_kind %q", i, v.opt("input_encoding"), v.opt("output_kind"))
		}
		in, ok := v.m["input"].(map[string]any)
		if !ok {
			t.Fatalf("%d: input %v is not {key, num_buckets}", i, v.m["input"])
		}
		key, n := uint64(jsonInt(t, in["key"])), int(jsonInt(t, in["num_buckets"]))
		want := int(v.int64("output"))
		if got := JumpHash(key, n); got != want {
			t.Errorf("%d: JumpHash(%d, %d) = %d, want %d", i, key, n, got, want)
		}
		l, _ := Jump{}.Layout(n)
		p, _ := Jump{}.Point([]shardkey.Value{{Type: shardkey.Uint64, Int: int64(key)}})
		if got := l.Shard(p); got != want {
			t.Errorf("%d: jump engine: bucket %d, want %d", i, got, want)
		}
		checked++
	}
	t.Logf("%s: checked %d jump vectors", file, checked)
}
