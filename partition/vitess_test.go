package partition

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/shardkey/shardkey"
)

// moved returns the fraction of points whose shard differs between a and
// b, and whether every moved point went to a shard >= from.
func moved(a, b Layout, points []uint64, from int) (float64, bool) {
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
	frac, toNew := moved(l4, l5, pts, 4)
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

var vtVindexEngine = map[string]string{
	"hash":                 "vitess",
	"xxhash":               "vitess-xxhash",
	"binary_md5":           "vitess-binary-md5",
	"unicode_loose_md5":    "vitess-unicode-loose-md5",
	"unicode_loose_xxhash": "vitess-unicode-loose-xxhash",
	"numeric":              "vitess-numeric",
	"reverse_bits":         "vitess-reverse-bits",
}

func checkVitessVectors(t *testing.T, file string) {
	checked := 0
	for i, m := range loadVectors(t, file).Vectors {
		v := vec{t, i, m}
		enc := v.opt("input_encoding")
		name := fmt.Sprintf("%d/%s/%s/%q", i, v.opt("vindex"), enc, v.opt("input"))
		spec, ok := vtVindexEngine[v.opt("vindex")]
		if !ok {
			t.Fatalf("%s: unknown vindex", name)
		}
		e := mustLookup(t, spec)
		in := v.opt("input")
		var val shardkey.Value
		switch enc {
		case "sqltypes INT64":
			n, err := strconv.ParseInt(in, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			val = shardkey.IntValue(n)
		case "sqltypes INT32":
			n, _ := strconv.ParseInt(in, 10, 32)
			val = shardkey.Value{Type: shardkey.Int32, Int: n}
		case "sqltypes UINT64":
			n, err := strconv.ParseUint(in, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			val = shardkey.Value{Type: shardkey.Uint64, Int: int64(n)}
		case "sqltypes VARCHAR (UTF-8)":
			val = shardkey.TextValue(in)
		case "sqltypes VARBINARY (UTF-8 bytes)":
			val = shardkey.Value{Type: shardkey.Bytes, Str: in}
		case "SQL NULL":
		default:
			t.Fatalf("%s: unknown encoding", name)
		}
		key := []shardkey.Value{val}
		h, err := e.Hash(key)
		switch v.opt("output_kind") {
		case "destination":
			if v.opt("output") != "DestinationNone" || !errors.Is(err, ErrNoDestination) {
				t.Errorf("%s: Hash = %v, %v; want %s", name, h, err, v.opt("output"))
			}
			checked++
			continue
		case "keyspace_id_hex":
			if err != nil || h.Kind != Hex || h.Hex != v.opt("output") {
				t.Errorf("%s: Hash = %v, %v; want %s", name, h, err, v.opt("output"))
			}
		default:
			t.Fatalf("%s: unknown output kind", name)
		}
		if ip, ok := e.(Int64Pointer); ok && val.Type == shardkey.Int64 {
			p, _ := e.Point(key)
			if got := ip.PointInt64(val.Int); got != p {
				t.Errorf("%s: PointInt64 %x, Point %x", name, got, p)
			}
		}
		for k, w := range v.m["shard_for_even_shard_count"].(map[string]any) {
			n, _ := strconv.Atoi(k)
			p, _ := e.Point(key)
			l, err := e.Layout(n)
			if err != nil {
				t.Fatal(err)
			}
			if got := l.(*VitessLayout).ShardName(l.Shard(p)); got != w.(string) {
				t.Errorf("%s: %d shards: %s, want %s", name, n, got, w)
			}
		}
		checked++
	}
	// The file's cross_check: a vtexplain transcript with 32 shards routes
	// hash(100) to 80-88 and hash(1000) to 18-20.
	e := mustLookup(t, "vitess")
	l, _ := e.Layout(32)
	for id, want := range map[int64]string{100: "80-88", 1000: "18-20"} {
		p, _ := e.Point([]shardkey.Value{shardkey.IntValue(id)})
		if got := l.(*VitessLayout).ShardName(l.Shard(p)); got != want {
			t.Errorf("cross_check %d: %s, want %s", id, got, want)
		}
	}
	t.Logf("%s: checked %d vitess vectors and the 2 cross_check routes", file, checked)
}
