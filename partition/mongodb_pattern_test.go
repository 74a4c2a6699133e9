package partition

import (
	"fmt"
	"testing"

	"github.com/shardkey/shardkey"
)

// TestMongoPattern: shard keys as MongoDB stores them (hashed values from
// testdata/vectors/mongodb_hashed.json: String 'user_1',
// NumberLong 1 and 42) and their chunks among a fresh collection's:
// a hashed prefix by calculateHashedSplitPoints (4 chunks: split points
// -I, 0, I with I = (2^63-1)/4*2 = 4611686018427387902), a ranged
// prefix by its split points.
func TestMongoPattern(t *testing.T) {
	i := shardkey.IntValue
	ranged := MongoPattern{Fields: []string{"a", "b"}, Hashed: 1}
	sk, err := ranged.ShardKey([]shardkey.Value{i(7), shardkey.TextValue("user_1")})
	if err != nil || fmt.Sprint(sk) != "[7 -7652920880569912678]" {
		t.Errorf("{a: 1, b: \"hashed\"} of [7, \"user_1\"] = %v, %v; want [7 -7652920880569912678]", sk, err)
	}
	if _, ok, err := ranged.Chunk(sk, 3); ok || err != nil {
		t.Errorf("a ranged prefix without split points: chunk known (%v, %v); want unknown", ok, err)
	}
	prefix := MongoPattern{Fields: []string{"a", "b"}, Hashed: 0}
	for _, c := range []struct {
		a        int64
		hash     int64
		n, chunk int
	}{
		{1, 5902408780260971510, 4, 3},  // > I
		{1, 5902408780260971510, 2, 1},  // >= 0
		{42, -944302157085130861, 4, 1}, // in [-I, 0)
		{42, -944302157085130861, 1, 0},
	} {
		sk, err := prefix.ShardKey([]shardkey.Value{i(c.a), shardkey.TextValue("x")})
		if err != nil || sk[0] != i(c.hash) || sk[1] != shardkey.TextValue("x") {
			t.Errorf("{a: \"hashed\", b: 1} of [%d, \"x\"] = %v, %v; want [%d x]", c.a, sk, err, c.hash)
			continue
		}
		if ch, ok, err := prefix.Chunk(sk, c.n); ch != c.chunk || !ok || err != nil {
			t.Errorf("hashed a = %d on %d shards: chunk %d (%v, %v); want %d", c.a, c.n, ch, ok, err, c.chunk)
		}
	}
	bounded := MongoPattern{Fields: []string{"a", "b"}, Hashed: 1, Bounds: []shardkey.Value{i(10), i(20)}}
	for a, want := range map[int64]int{5: 0, 10: 1, 19: 1, 20: 2, 99: 2} {
		sk, _ := bounded.ShardKey([]shardkey.Value{i(a), i(1)})
		if ch, ok, err := bounded.Chunk(sk, 3); ch != want || !ok || err != nil {
			t.Errorf("a = %d with split points 10, 20: chunk %d (%v, %v); want %d", a, ch, ok, err, want)
		}
	}
	if _, _, err := bounded.Chunk(sk, 2); err == nil {
		t.Error("3 chunks on 2 shards: no error")
	}
	if _, err := ranged.ShardKey([]shardkey.Value{i(1)}); err == nil {
		t.Error("1 value for a 2-field pattern: no error")
	}
}
