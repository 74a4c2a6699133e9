package partition

import (
	"encoding/binary"
	"math"
	"strconv"
	"testing"

	"github.com/shardkey/shardkey"
)

// engineA looks up an engine of engines_a by spec.
func engineA(t testing.TB, spec string) Engine {
	t.Helper()
	e, err := Lookup(spec)
	if err != nil {
		t.Fatalf("Lookup(%q): %v", spec, err)
	}
	return e
}

func TestLookupA(t *testing.T) {
	for _, spec := range []string{"redis", "cassandra", "cassandra:num_tokens=8,seed=3", "mongodb",
		"kafka", "kafka-librdkafka", "ketama", "ketama:variant=spy"} {
		if got := engineA(t, spec).Name(); got != spec {
			t.Errorf("Lookup(%q).Name() = %q", spec, got)
		}
	}
	for _, bad := range []string{"cassandra:num_tokens=0", "cassandra:seed=x", "ketama:variant=x", "redis:x=1"} {
		if _, err := Lookup(bad); err == nil {
			t.Errorf("Lookup(%q) succeeded; want an error", bad)
		}
	}
}

// slotRanges returns the contiguous slot ranges of l as [first, last, master].
func slotRanges(l *RedisLayout) [][3]int {
	var r [][3]int
	for s := 0; s < RedisSlots; s++ {
		o := int(l.owner[s])
		if len(r) > 0 && r[len(r)-1][2] == o {
			r[len(r)-1][1] = s
			continue
		}
		r = append(r, [3]int{s, s, o})
	}
	return r
}

func TestRedis_LayoutAsRedisCli(t *testing.T) {
	// The assignments redis-cli --cluster create prints ("Master[0] ->
	// Slots 0 - 5460" ...), as in the cluster tutorial.
	for _, c := range []struct {
		n    int
		want [][3]int
	}{
		{1, [][3]int{{0, 16383, 0}}},
		{3, [][3]int{{0, 5460, 0}, {5461, 10922, 1}, {10923, 16383, 2}}},
		{4, [][3]int{{0, 4095, 0}, {4096, 8191, 1}, {8192, 12287, 2}, {12288, 16383, 3}}},
		{6, [][3]int{{0, 2730, 0}, {2731, 5460, 1}, {5461, 8191, 2}, {8192, 10922, 3}, {10923, 13652, 4}, {13653, 16383, 5}}},
	} {
		l := layoutA(t, Redis{}, c.n).(*RedisLayout)
		got := slotRanges(l)
		if len(got) != len(c.want) {
			t.Errorf("Layout(%d) = %v; want %v", c.n, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("Layout(%d) = %v; want %v", c.n, got, c.want)
				break
			}
		}
	}
	for _, n := range []int{2, 5, 7, 100, 1000, 16383, 16384} {
		l := layoutA(t, Redis{}, n).(*RedisLayout)
		if r := slotRanges(l); len(r) != n || r[len(r)-1][2] != n-1 {
			t.Errorf("Layout(%d): %d ranges; want one per master in order", n, len(r))
		}
	}
}

func TestRedis_Grow(t *testing.T) {
	for n := 3; n <= 12; n++ {
		old := layoutA(t, Redis{}, n).(*RedisLayout)
		gl, err := Redis{}.Grow(old, n+1)
		if err != nil {
			t.Fatal(err)
		}
		g := gl.(*RedisLayout)
		moved := 0
		for s := 0; s < RedisSlots; s++ {
			if g.owner[s] != old.owner[s] {
				moved++
				if int(g.owner[s]) != n {
					t.Fatalf("%d->%d: slot %d moved from %d to %d, not to the new master", n, n+1, s, old.owner[s], g.owner[s])
				}
			}
		}
		// The new master gets (int)(16384/(n+1)) slots plus the rounding
		// remainder the balance loop hands it.
		expected := RedisSlots / (n + 1)
		if moved < expected || moved > expected+n {
			t.Errorf("%d->%d: %d slots moved; want %d..%d", n, n+1, moved, expected, expected+n)
		}
		if frac := float64(moved) / RedisSlots; math.Abs(frac-1/float64(n+1)) > 0.001 {
			t.Errorf("%d->%d: moved fraction %.4f; want ~1/%d", n, n+1, frac, n+1)
		}
		for i := 0; i <= n; i++ {
			if c := g.SlotCount(i); c < expected || c > expected+n {
				t.Errorf("%d->%d: master %d has %d slots; want about %d", n, n+1, i, c, expected)
			}
		}
	}
	// 3 -> 4 exactly: each old master gives its lowest 1365 or 1366 slots.
	g, _ := Redis{}.Grow(layoutA(t, Redis{}, 3), 4)
	want := [][3]int{{0, 1364, 3}, {1365, 5460, 0}, {5461, 6826, 3}, {6827, 10922, 1}, {10923, 12287, 3}, {12288, 16383, 2}}
	got := slotRanges(g.(*RedisLayout))
	if len(got) != len(want) {
		t.Fatalf("3->4 ranges %v; want %v", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("3->4 ranges %v; want %v", got, want)
		}
	}
	// Growing by several masters at once balances them all.
	g, err := Redis{}.Grow(layoutA(t, Redis{}, 3), 6)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 6; i++ {
		if c := g.(*RedisLayout).SlotCount(i); c < 2730 || c > 2732 {
			t.Errorf("3->6: master %d has %d slots; want ~2730", i, c)
		}
	}
	if _, err := (Redis{}).Grow(layoutA(t, Redis{}, 4), 3); err == nil {
		t.Error("Grow 4->3 succeeded; want an error")
	}
}

// ringShare returns the fraction of the 64-bit point space node owns.
func ringShare(r *TokenRing, node int) float64 {
	share := 0.0
	for i, tok := range r.tokens {
		if int(r.owner[i]) != node {
			continue
		}
		var prev uint64
		if i > 0 {
			prev = r.tokens[i-1]
		} else {
			prev = r.tokens[len(r.tokens)-1]
		}
		share += float64(tok-prev) / math.Pow(2, 64) // wraps correctly for i == 0
	}
	return share
}

func TestCassandra_Grow(t *testing.T) {
	for n := 3; n <= 6; n++ {
		total := 0.0
		const seeds = 40
		for seed := 1; seed <= seeds; seed++ {
			e, err := NewCassandra(16, seed)
			if err != nil {
				t.Fatal(err)
			}
			old := layoutA(t, e, n).(*TokenRing)
			gl, err := e.Grow(old, n+1)
			if err != nil {
				t.Fatal(err)
			}
			g := gl.(*TokenRing)
			// Existing tokens stay: every old token is still owned by its node.
			have := map[uint64]int32{}
			for i, tok := range g.tokens {
				have[tok] = g.owner[i]
			}
			for i, tok := range old.tokens {
				if o, ok := have[tok]; !ok || o != old.owner[i] {
					t.Fatalf("seed %d %d->%d: token %d of node %d lost", seed, n, n+1, tok, old.owner[i])
				}
			}
			// Keys move only to the new node.
			for k := int64(0); k < 2000; k++ {
				p := e.PointInt64(k)
				if a, b := old.Shard(p), g.Shard(p); a != b && b != n {
					t.Fatalf("seed %d %d->%d: key %d moved %d -> %d", seed, n, n+1, k, a, b)
				}
			}
			total += ringShare(g, n)
		}
		// Random tokens give the new node 1/(n+1) of the ring on average.
		if mean := total / seeds; math.Abs(mean-1/float64(n+1)) > 0.02 {
			t.Errorf("%d->%d: new node owns %.4f of the ring on average; want ~%.4f", n, n+1, mean, 1/float64(n+1))
		}
	}
}

func TestCassandra_LayoutDeterministic(t *testing.T) {
	a := layoutA(t, Cassandra{}, 5).(*TokenRing)
	b := layoutA(t, engineA(t, "cassandra:num_tokens=16,seed=1"), 5).(*TokenRing)
	if len(a.tokens) != 80 {
		t.Fatalf("5 nodes x 16 tokens: %d tokens", len(a.tokens))
	}
	for i := range a.tokens {
		if a.tokens[i] != b.tokens[i] || a.owner[i] != b.owner[i] {
			t.Fatal("same seed, different rings")
		}
	}
	c := layoutA(t, engineA(t, "cassandra:seed=2"), 5).(*TokenRing)
	if c.tokens[0] == a.tokens[0] && c.tokens[1] == a.tokens[1] {
		t.Error("seeds 1 and 2 give the same tokens")
	}
}

func TestMongoDB_SplitPoints(t *testing.T) {
	const m int64 = math.MaxInt64
	check := func(n int, want ...int64) {
		t.Helper()
		got := MongoHashedSplitPoints(n)
		if len(got) != len(want) {
			t.Fatalf("MongoHashedSplitPoints(%d) = %v; want %v", n, got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("MongoHashedSplitPoints(%d) = %v; want %v", n, got, want)
			}
		}
	}
	check(1)
	check(2, 0)
	iv3 := (m / 3) * 2
	check(3, -iv3/2, iv3/2)
	iv4 := (m / 4) * 2
	check(4, -iv4, 0, iv4)
	for n := 1; n <= 64; n++ {
		l := layoutA(t, MongoDB{}, n)
		if l.Shards() != n {
			t.Fatalf("Layout(%d).Shards() = %d", n, l.Shards())
		}
		if l.Shard(0) != 0 || l.Shard(math.MaxUint64) != n-1 {
			t.Errorf("Layout(%d): extremes on %d and %d", n, l.Shard(0), l.Shard(math.MaxUint64))
		}
	}
}

func TestKafka_Grow(t *testing.T) {
	for _, e := range []Engine{Kafka{}, KafkaLibrdkafka{}} {
		for n := 2; n <= 8; n++ {
			old := layoutA(t, e, n)
			g, err := e.(Grower).Grow(old, n+1)
			if err != nil {
				t.Fatal(err)
			}
			const keys = 200000
			moved := 0
			for k := int64(0); k < keys; k++ {
				p := e.(Int64Pointer).PointInt64(k)
				if old.Shard(p) != g.Shard(p) {
					moved++
				}
			}
			// h mod n == h mod (n+1) for n of every n(n+1) hashes.
			want := float64(n) / float64(n+1)
			if frac := float64(moved) / keys; math.Abs(frac-want) > 0.01 {
				t.Errorf("%s %d->%d: moved %.4f; want %.4f", e.Name(), n, n+1, frac, want)
			}
		}
	}
}

func TestKetama_Grow(t *testing.T) {
	for n := 2; n <= 10; n++ {
		old := layoutA(t, Ketama{}, n).(*KetamaLayout)
		gl, err := Ketama{}.Grow(old, n+1)
		if err != nil {
			t.Fatal(err)
		}
		g := gl.(*KetamaLayout)
		samePoints := len(old.points)/n == len(g.points)/(n+1)
		const keys = 100000
		moved, wrong := 0, 0
		for k := int64(0); k < keys; k++ {
			p := Ketama{}.PointInt64(k)
			a, b := old.Shard(p), g.Shard(p)
			if a != b {
				moved++
				if b != n {
					wrong++
				}
			}
		}
		if samePoints && wrong > 0 {
			t.Errorf("%d->%d: %d keys moved between old servers with unchanged points", n, n+1, wrong)
		}
		if frac := float64(moved) / keys; math.Abs(frac-1/float64(n+1)) > 0.06 {
			t.Errorf("%d->%d: moved %.4f; want ~%.4f", n, n+1, frac, 1/float64(n+1))
		}
	}
}

func TestKetama_PointsPerServer(t *testing.T) {
	// float32 arithmetic: equal weights give 160 points, or 156 when
	// (1/n)*160/4*n rounds below 40.
	for n := 1; n <= 40; n++ {
		l := layoutA(t, Ketama{}, n).(*KetamaLayout)
		per := len(l.points) / n
		if per != 160 && per != 156 {
			t.Errorf("%d servers: %d points per server; want 160 or 156", n, per)
		}
	}
}

// TestPointInt64A checks each Int64Pointer fast path against Point.
func TestPointInt64A(t *testing.T) {
	for _, spec := range []string{"redis", "cassandra", "mongodb", "kafka", "kafka-librdkafka", "ketama"} {
		e := engineA(t, spec)
		ip, ok := e.(Int64Pointer)
		if !ok {
			t.Fatalf("%s is not an Int64Pointer", spec)
		}
		for _, v := range []int64{0, 1, -1, 42, math.MaxInt64, math.MinInt64, 1 << 40} {
			want, err := e.Point([]shardkey.Value{shardkey.IntValue(v)})
			if err != nil {
				t.Fatal(err)
			}
			if got := ip.PointInt64(v); got != want {
				t.Errorf("%s.PointInt64(%d) = %d; Point = %d", spec, v, got, want)
			}
		}
	}
}

// TestKeyEncodingsA pins how each engine serialises values beyond the
// vectors' types.
func TestKeyEncodingsA(t *testing.T) {
	uuid := shardkey.Value{Type: shardkey.UUID, Str: string([]byte{0x12, 0x3e, 0x45, 0x67, 0xe8, 0x9b, 0x12, 0xd3, 0xa4, 0x56, 0x42, 0x66, 0x14, 0x17, 0x40, 0x00})}
	ts := shardkey.TimeValue(-1) // 1µs before the epoch: -1 ms floored
	// Redis and ketama: integers are decimal text, compound keys joined by ':'.
	same := func(e Engine, a, b []shardkey.Value) {
		t.Helper()
		pa, errA := e.Point(a)
		pb, errB := e.Point(b)
		if errA != nil || errB != nil || pa != pb {
			t.Errorf("%s: Point(%v) = %d, %v; Point(%v) = %d, %v; want equal", e.Name(), a, pa, errA, b, pb, errB)
		}
	}
	for _, e := range []Engine{Redis{}, Ketama{}} {
		same(e, []shardkey.Value{shardkey.IntValue(-42)}, []shardkey.Value{shardkey.TextValue("-42")})
		same(e, []shardkey.Value{{Type: shardkey.Int32, Int: 7}}, []shardkey.Value{shardkey.TextValue("7")})
		same(e, []shardkey.Value{shardkey.TextValue("user"), shardkey.IntValue(1000)}, []shardkey.Value{shardkey.TextValue("user:1000")})
		same(e, []shardkey.Value{uuid}, []shardkey.Value{shardkey.TextValue("123e4567-e89b-12d3-a456-426614174000")})
	}
	// Redis hash tags apply to the joined key.
	same(Redis{}, []shardkey.Value{shardkey.TextValue("{user1000}"), shardkey.TextValue("following")},
		[]shardkey.Value{shardkey.TextValue("user1000")})
	// Cassandra: timestamp is 8-byte BE milliseconds, i.e. bigint of ms.
	same(Cassandra{}, []shardkey.Value{ts}, []shardkey.Value{shardkey.IntValue(-1)})
	same(Cassandra{}, []shardkey.Value{shardkey.TimeValue(1_700_000_000_123_456)}, []shardkey.Value{shardkey.IntValue(1_700_000_000_123)})
	// Kafka: Int16 ShortSerializer, UUID as its string, timestamp as LongSerializer of ms.
	short := make([]byte, 2)
	binary.BigEndian.PutUint16(short, uint16(0xfffe))
	same(Kafka{}, []shardkey.Value{{Type: shardkey.Int16, Int: -2}}, []shardkey.Value{bytesA(string(short))})
	same(Kafka{}, []shardkey.Value{uuid}, []shardkey.Value{shardkey.TextValue("123e4567-e89b-12d3-a456-426614174000")})
	same(Kafka{}, []shardkey.Value{ts}, []shardkey.Value{shardkey.IntValue(-1)})
	// MongoDB: Timestamp is a Date of floored ms; 42 == 42.9 == int32 42.
	d0 := MongoHashElement(mongoDate, make([]byte, 8))
	if h, _ := (MongoDB{}).Hash([]shardkey.Value{shardkey.TimeValue(999)}); h != SignedHash(d0) {
		t.Errorf("mongodb: Hash(999µs) = %v; want Date(0) %d", h, d0)
	}
	same(MongoDB{}, []shardkey.Value{shardkey.FloatValue(42.9)}, []shardkey.Value{{Type: shardkey.Int32, Int: 42}})
	same(MongoDB{}, []shardkey.Value{{Type: shardkey.Float32, Float: -42.5}}, []shardkey.Value{shardkey.IntValue(-42)})

	// Keys the systems cannot place or serialise.
	null := []shardkey.Value{{}}
	for _, e := range []Engine{Redis{}, Cassandra{}, Kafka{}, KafkaLibrdkafka{}, Ketama{}} {
		if _, err := e.Point(null); err == nil {
			t.Errorf("%s: Point(NULL) succeeded; want ErrNoDestination", e.Name())
		}
	}
	if _, err := (MongoDB{}).Point(null); err != nil {
		t.Errorf("mongodb: Point(NULL) = %v; null is hashable", err)
	}
	two := []shardkey.Value{shardkey.IntValue(1), shardkey.IntValue(2)}
	for _, e := range []Engine{MongoDB{}, Kafka{}, KafkaLibrdkafka{}} {
		if _, err := e.Point(two); err == nil {
			t.Errorf("%s: Point of a 2-column key succeeded; want an error", e.Name())
		}
	}
	if _, err := (Cassandra{}).Point(two); err != nil {
		t.Errorf("cassandra: composite key: %v", err)
	}
}

func BenchmarkRedisLayout(b *testing.B) {
	for n := 3; n <= 300; n *= 10 {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			for b.Loop() {
				if _, err := (Redis{}).Layout(n); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
