package partition

import (
	"crypto/md5"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/shardkey/shardkey"
)

// specsB are the engines of engines_b.go, options included where they
// change the code path.
var specsB = []string{
	"postgres", "citus", "citus:shard_count=32",
	"elasticsearch", "elasticsearch:function=mod", "elasticsearch:partition_size=3",
	"yugabyte",
	"vitess", "vitess-xxhash", "vitess-binary-md5", "vitess-unicode-loose-md5",
	"vitess-unicode-loose-xxhash", "vitess-numeric", "vitess-reverse-bits",
	"cockroachdb", "cockroachdb:generation=1", "cockroachdb:generation=2",
}

func TestLookupB(t *testing.T) {
	for _, spec := range specsB {
		e := mustLookup(t, spec)
		if e.Name() != spec {
			t.Errorf("Lookup(%q).Name() = %q", spec, e.Name())
		}
		if Doc(specName(spec)) == "" {
			t.Errorf("%s: no doc line", spec)
		}
	}
	for _, bad := range []string{"citus:shard_count=0", "elasticsearch:function=x", "elasticsearch:partition_size=0", "cockroachdb:generation=4", "vitess:x=1"} {
		if _, err := Lookup(bad); err == nil {
			t.Errorf("Lookup(%q) succeeded", bad)
		}
	}
}

func specName(spec string) string {
	for i := range spec {
		if spec[i] == ':' {
			return spec[:i]
		}
	}
	return spec
}

// fuzzValueB builds a value of any shardkey type from fuzz inputs.
func fuzzValueB(typ uint8, i int64, f float64, s string) shardkey.Value {
	switch t := shardkey.Type(typ % 11); t {
	case shardkey.Null:
		return shardkey.Value{}
	case shardkey.Int16:
		return shardkey.Value{Type: t, Int: int64(int16(i))}
	case shardkey.Int32:
		return shardkey.Value{Type: t, Int: int64(int32(i))}
	case shardkey.Int64, shardkey.Uint64, shardkey.Timestamp:
		return shardkey.Value{Type: t, Int: i}
	case shardkey.Float32, shardkey.Float64:
		return shardkey.Value{Type: t, Float: f}
	case shardkey.UUID:
		var b [16]byte
		copy(b[:], s)
		return shardkey.Value{Type: t, Str: string(b[:])}
	default:
		return shardkey.Value{Type: t, Str: s}
	}
}

// FuzzEngineB checks every engine of engines_b.go for panics, shards out
// of 0..n-1, nondeterminism, and PointInt64 agreeing with Point.
func FuzzEngineB(f *testing.F) {
	f.Add(uint8(3), int64(42), 1.5, "user_1", uint8(7), uint16(8))
	f.Add(uint8(7), int64(-1), math.NaN(), "Tést ", uint8(0), uint16(3))
	f.Add(uint8(8), int64(math.MinInt64), -0.0, "\xff\x00", uint8(10), uint16(1))
	f.Add(uint8(4), int64(-1), math.Inf(1), " 18446744073709551615 ", uint8(2), uint16(1000))
	engines := make([]Engine, len(specsB))
	for i, spec := range specsB {
		engines[i] = mustLookupTB(f, spec)
	}
	f.Fuzz(func(t *testing.T, typ uint8, i int64, fl float64, s string, typ2 uint8, n uint16) {
		shards := int(n%1024) + 1
		keys := [][]shardkey.Value{
			{fuzzValueB(typ, i, fl, s)},
			{fuzzValueB(typ, i, fl, s), fuzzValueB(typ2, ^i, -fl, s+"x")},
		}
		for _, e := range engines {
			l, err := e.Layout(shards)
			if err != nil {
				t.Fatalf("%s.Layout(%d): %v", e.Name(), shards, err)
			}
			if l.Shards() != shards {
				t.Fatalf("%s: Shards() = %d, want %d", e.Name(), l.Shards(), shards)
			}
			for _, key := range keys {
				p, err := e.Point(key)
				h, herr := e.Hash(key)
				if (err == nil) != (herr == nil) {
					t.Fatalf("%s(%v): Point error %v, Hash error %v", e.Name(), key, err, herr)
				}
				if err != nil {
					continue
				}
				p2, _ := e.Point(key)
				h2, _ := e.Hash(key)
				if p != p2 || h != h2 {
					t.Fatalf("%s(%v): not deterministic", e.Name(), key)
				}
				if sh := l.Shard(p); sh < 0 || sh >= shards {
					t.Fatalf("%s(%v): shard %d of %d", e.Name(), key, sh, shards)
				}
			}
			if ip, ok := e.(Int64Pointer); ok {
				if p, err := e.Point([]shardkey.Value{shardkey.IntValue(i)}); err == nil && ip.PointInt64(i) != p {
					t.Fatalf("%s: PointInt64(%d) = %d, Point = %d", e.Name(), i, ip.PointInt64(i), p)
				}
			}
			if g, ok := e.(Grower); ok {
				gl, err := g.Grow(l, shards+1)
				if err != nil {
					continue // e.g. Vitess cannot grow past one-ksid ranges
				}
				p, err := e.Point(keys[0])
				if err != nil {
					continue
				}
				if sh := gl.Shard(p); gl.Shards() != shards+1 || sh < 0 || sh > shards {
					t.Fatalf("%s: grown layout: shard %d of %d", e.Name(), sh, gl.Shards())
				}
			}
		}
	})
}

func mustLookupTB(t testing.TB, spec string) Engine {
	t.Helper()
	e, err := Lookup(spec)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestNoDestinationB(t *testing.T) {
	null := []shardkey.Value{{}}
	for _, spec := range []string{"citus", "elasticsearch", "yugabyte", "vitess", "vitess-numeric", "vitess-reverse-bits"} {
		if _, err := mustLookup(t, spec).Point(null); !errors.Is(err, ErrNoDestination) {
			t.Errorf("%s: NULL: %v, want ErrNoDestination", spec, err)
		}
	}
	if _, err := mustLookup(t, "vitess-numeric").Point([]shardkey.Value{shardkey.IntValue(-5)}); !errors.Is(err, ErrNoDestination) {
		t.Errorf("vitess-numeric(-5): %v, want ErrNoDestination", err)
	}
	// PostgreSQL puts NULL partition keys in remainder 0.
	if p, err := mustLookup(t, "postgres").Point(null); err != nil || p != 0 {
		t.Errorf("postgres NULL point = %d, %v; want 0", p, err)
	}
	// Vitess parses text for the hash vindex, with whitespace, no sign.
	e := mustLookup(t, "vitess")
	want, _ := e.Hash([]shardkey.Value{shardkey.IntValue(42)})
	for _, s := range []string{"42", " 42\t"} {
		if got, err := e.Hash([]shardkey.Value{shardkey.TextValue(s)}); err != nil || got != want {
			t.Errorf("vitess(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, s := range []string{"-1", "4x", "", "18446744073709551616"} {
		if _, err := e.Hash([]shardkey.Value{shardkey.TextValue(s)}); !errors.Is(err, ErrNoDestination) {
			t.Errorf("vitess(%q): %v, want ErrNoDestination", s, err)
		}
	}
	if _, err := mustLookup(t, "vitess-unicode-loose-md5").Point([]shardkey.Value{{Type: shardkey.Bytes, Str: "\xff"}}); err == nil {
		t.Error("unicode_loose_md5 accepted invalid UTF-8")
	}
}

func TestPostgresTypes(t *testing.T) {
	pg := func(v shardkey.Value) int32 {
		h, err := pgHash32(v, "postgres")
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	// Integer widths agree (hashint2/4/8), as do Uint64 values that fit.
	for _, x := range []int64{0, 1, -42, 32767} {
		a := pg(shardkey.Value{Type: shardkey.Int16, Int: x})
		b := pg(shardkey.IntValue(x))
		c := pg(shardkey.Value{Type: shardkey.Uint64, Int: x & math.MaxInt64})
		if a != b || (x >= 0 && c != b) {
			t.Errorf("%d: int2 %d int8 %d uint64 %d", x, a, b, c)
		}
	}
	// A timestamp is hashint8 of microseconds since 2000-01-01.
	if a, b := pg(shardkey.TimeValue(pgEpochOffset+123)), pg(shardkey.IntValue(123)); a != b {
		t.Errorf("timestamp at 2000-01-01+123us hashes %d, int8 123 hashes %d", a, b)
	}
	// hashfloat8: ±0 hash to 0, float4 widens, every NaN is one NaN.
	if pg(shardkey.FloatValue(0)) != 0 || pg(shardkey.FloatValue(math.Copysign(0, -1))) != 0 {
		t.Error("±0.0 do not hash to 0")
	}
	if pg(shardkey.Value{Type: shardkey.Float32, Float: 1.5}) != pg(shardkey.FloatValue(1.5)) {
		t.Error("float4 1.5 and float8 1.5 hash differently")
	}
	if pg(shardkey.FloatValue(math.NaN())) != pg(shardkey.FloatValue(math.Float64frombits(0xfff8000000000001))) {
		t.Error("NaNs hash differently")
	}
	if _, err := pgHash32(shardkey.Value{Type: shardkey.Uint64, Int: -1}, "postgres"); err == nil {
		t.Error("uint64 max accepted as a bigint")
	}
	// Compound keys fold with hash_combine64 in column order.
	e := mustLookup(t, "postgres")
	a, b := shardkey.IntValue(1), shardkey.TextValue("x")
	p, _ := e.Point([]shardkey.Value{a, b})
	ha, _ := pgHash64(a, pgHashPartitionSeed, "")
	hb, _ := pgHash64(b, pgHashPartitionSeed, "")
	if want := pgHashCombine64(pgHashCombine64(0, ha), hb); p != want {
		t.Errorf("compound point %x, want %x", p, want)
	}
}

func TestCockroachDBEncoding(t *testing.T) {
	// encoding.EncodeVarintAscending boundaries.
	for _, c := range []struct {
		v    int64
		want string
	}{
		{0, "\x88"}, {109, "\xf5"}, {110, "\xf6\x6e"}, {255, "\xf6\xff"}, {256, "\xf7\x01\x00"},
		{-1, "\x87\xff"}, {-255, "\x87\x01"}, {-256, "\x86\xff\x00"},
		{math.MaxInt64, "\xfd\x7f\xff\xff\xff\xff\xff\xff\xff"},
		{math.MinInt64, "\x80\x80\x00\x00\x00\x00\x00\x00\x00"},
	} {
		if got := string(crdbAppendVarint(nil, c.v)); got != c.want {
			t.Errorf("varint(%d) = %x, want %x", c.v, got, c.want)
		}
	}
	if got, _ := crdbAppendKey(nil, shardkey.TextValue("a\x00b")); string(got) != "\x12a\x00\xffb\x00\x01" {
		t.Errorf("string key %x", got)
	}
	// FNV-1 (not 1a) known answer: fnv32("a") = 0x050c5d7e.
	if got := crdbFNV32([]byte("a")); got != 0x050c5d7e {
		t.Errorf("fnv32(a) = %#x", got)
	}
	// Generation 3 is FNV-1 of md5's hex text of the key bytes.
	sum := md5.Sum([]byte("\x8a"))
	p, _ := mustLookup(t, "cockroachdb").Point([]shardkey.Value{shardkey.IntValue(2)})
	if want := uint64(crdbFNV32([]byte(hexLower(sum[:])))); p != want {
		t.Errorf("generation 3 point %d, want %d", p, want)
	}
	// Generation 1 sums per-column hashes.
	e1 := mustLookup(t, "cockroachdb:generation=1")
	p1, _ := e1.Point([]shardkey.Value{shardkey.IntValue(12), shardkey.TextValue("ab")})
	if want := uint64(crdbFNV32([]byte("12"))) + uint64(crdbFNV32([]byte("ab"))); p1 != want {
		t.Errorf("generation 1 point %d, want %d", p1, want)
	}
}

func hexLower(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}

// movedB returns the fraction of points whose shard differs between a and
// b, and whether every moved point went to a shard >= from.
func movedB(a, b Layout, points []uint64, from int) (float64, bool) {
	moved, toNew := 0, true
	for _, p := range points {
		if sa, sb := a.Shard(p), b.Shard(p); sa != sb {
			moved++
			if sb < from {
				toNew = false
			}
		}
	}
	return float64(moved) / float64(len(points)), toNew
}

func randomPoints(n int, max uint64) []uint64 {
	r := rand.New(rand.NewPCG(1, 2))
	ps := make([]uint64, n)
	for i := range ps {
		if max == 0 {
			ps[i] = r.Uint64()
		} else {
			ps[i] = r.Uint64N(max)
		}
	}
	return ps
}

func TestVitess_Grow(t *testing.T) {
	e := mustLookup(t, "vitess").(Grower)
	l4, _ := mustLookup(t, "vitess").Layout(4)
	l5, err := e.Grow(l4, 5)
	if err != nil {
		t.Fatal(err)
	}
	vl := l5.(*VitessLayout)
	var names []string
	for i := 0; i < 5; i++ {
		names = append(names, vl.ShardName(i))
	}
	if want := []string{"-20", "40-80", "80-c0", "c0-", "20-40"}; !equalStrings(names, want) {
		t.Errorf("4 -> 5 shards: %v, want %v", names, want)
	}
	// Splitting a quarter of the keyspace moves exactly the upper half of
	// it, 1/8 of the keys, all to the new shard.
	pts := randomPoints(200000, 0)
	frac, toNew := movedB(l4, l5, pts, 4)
	if math.Abs(frac-0.125) > 0.005 || !toNew {
		t.Errorf("4 -> 5 moved %.4f (want 0.125), all to the new shard: %v", frac, toNew)
	}
	// Growing 4 -> 8 one split at a time ends at the even 8-shard ranges.
	l8, _ := e.Grow(l4, 8)
	fresh, _ := mustLookup(t, "vitess").Layout(8)
	set := map[string]int{}
	for i := 0; i < 8; i++ {
		set[l8.(*VitessLayout).ShardName(i)]++
		set[fresh.(*VitessLayout).ShardName(i)]--
	}
	for name, c := range set {
		if c != 0 {
			t.Errorf("4 -> 8 by splits differs from 8 even shards at %s", name)
		}
	}
	// One shard splits at 80.
	l1, _ := mustLookup(t, "vitess").Layout(1)
	l2, _ := e.Grow(l1, 2)
	if a, b := l2.(*VitessLayout).ShardName(0), l2.(*VitessLayout).ShardName(1); a != "-80" || b != "80-" {
		t.Errorf("1 -> 2: %s %s", a, b)
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestVitess_UnevenLayout(t *testing.T) {
	l, err := mustLookup(t, "vitess").Layout(3)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for i := 0; i < 3; i++ {
		names = append(names, l.(*VitessLayout).ShardName(i))
	}
	// GenerateShardRanges(3, 2): boundaries int(256/3)=0x55, int(512/3)=0xaa.
	if want := []string{"-55", "55-aa", "aa-"}; !equalStrings(names, want) {
		t.Errorf("3 shards: %v, want %v", names, want)
	}
	l, _ = mustLookup(t, "vitess").Layout(512)
	if got := l.(*VitessLayout).ShardName(1); got != "0080-0100" {
		t.Errorf("512 shards: shard 1 is %s, want 0080-0100", got)
	}
}

func TestCitus_Grow(t *testing.T) {
	e := mustLookup(t, "citus:shard_count=32")
	l4, _ := e.Layout(4)
	l5, err := e.(Grower).Grow(l4, 5)
	if err != nil {
		t.Fatal(err)
	}
	// 32 shards on 4 nodes (8 each) rebalance to 7,7,6,6,6: the new node
	// takes 6 whole shards, 6/32 of the keyspace, and nothing else moves.
	count := make([]int, 5)
	cl := l5.(*CitusLayout)
	for s := 0; s < cl.ShardCount(); s++ {
		count[cl.node[s]]++
	}
	if count[4] != 6 {
		t.Errorf("new node holds %d shards, want 6 (counts %v)", count[4], count)
	}
	pts := randomPoints(200000, 1<<32)
	frac, toNew := movedB(l4, l5, pts, 4)
	if math.Abs(frac-6.0/32) > 0.005 || !toNew {
		t.Errorf("moved %.4f (want %.4f), all to the new node: %v", frac, 6.0/32, toNew)
	}
	// One shard per node: nothing can move.
	d, _ := mustLookup(t, "citus").Layout(4)
	g, _ := mustLookup(t, "citus").(Grower).Grow(d, 5)
	if frac, _ := movedB(d, g, pts, 4); frac != 0 {
		t.Errorf("default citus grow moved %.4f", frac)
	}
}

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

func TestYugabyte_Layout(t *testing.T) {
	l, _ := mustLookup(t, "yugabyte").Layout(3)
	// Tablets [0, 21845), [21845, 43690), [43690, 65536).
	for _, c := range [][2]int{{0, 0}, {21844, 0}, {21845, 1}, {43689, 1}, {43690, 2}, {65535, 2}} {
		if got := l.Shard(uint64(c[0])); got != c[1] {
			t.Errorf("hash %d: tablet %d, want %d", c[0], got, c[1])
		}
	}
	// The O(1) tablet formula equals the Ranges of tablet starts.
	for _, n := range []int{1, 2, 3, 7, 16, 100, 1000, 65535, 65536} {
		l, _ := mustLookup(t, "yugabyte").Layout(n)
		r := l.(YBTablets).Ranges()
		for h := uint64(0); h < 65536; h += 1 + h%7 {
			if a, b := l.Shard(h), r.Shard(h); a != b {
				t.Fatalf("%d tablets, hash %d: tablet %d, Ranges says %d", n, h, a, b)
			}
		}
	}
	if _, err := mustLookup(t, "yugabyte").Layout(65537); err == nil {
		t.Error("65537 tablets accepted")
	}
}
