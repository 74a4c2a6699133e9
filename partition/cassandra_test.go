package partition

import (
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
)

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
			ee, err := newCassandra(Options{"num_tokens": "16", "seed": fmt.Sprint(seed), "allocate": "random"})
			if err != nil {
				t.Fatal(err)
			}
			e := ee.(Cassandra)
			old := mustLayout(t, e, n).(*TokenRing)
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
	a := mustLayout(t, Cassandra{}, 5).(*TokenRing)
	b := mustLayout(t, mustLookup(t, "cassandra:num_tokens=16,seed=1"), 5).(*TokenRing)
	if len(a.tokens) != 80 {
		t.Fatalf("5 nodes x 16 tokens: %d tokens", len(a.tokens))
	}
	for i := range a.tokens {
		if a.tokens[i] != b.tokens[i] || a.owner[i] != b.owner[i] {
			t.Fatal("same seed, different rings")
		}
	}
	c := mustLayout(t, mustLookup(t, "cassandra:seed=2"), 5).(*TokenRing)
	if c.tokens[0] == a.tokens[0] && c.tokens[1] == a.tokens[1] {
		t.Error("seeds 1 and 2 give the same tokens")
	}
}

// cqlValue builds the shardkey value of a CQL-typed vector input.
func cqlValue(t *testing.T, v vec, cqlType string, x any) shardkey.Value {
	t.Helper()
	switch cqlType {
	case "int":
		return shardkey.Value{Type: shardkey.Int32, Int: jsonInt(t, x)}
	case "bigint":
		return shardkey.IntValue(jsonInt(t, x))
	case "text":
		s, ok := x.(string)
		if !ok {
			t.Fatalf("%s: text input %T", v.where(), x)
		}
		return shardkey.TextValue(s)
	case "uuid":
		return shardkey.Value{Type: shardkey.UUID, Str: decodeHex(t, x.(string))}
	case "blob":
		return bytesValue(decodeHex(t, x.(string)))
	}
	t.Fatalf("%s: unknown cql_type %q", v.where(), cqlType)
	return shardkey.Value{}
}

func checkCassandraVectors(t *testing.T, file string) {
	f := loadVectors(t, file)
	e := Cassandra{}
	checked, quirk := 0, 0
	eachVec(t, f, func(v vec) {
		v.wantKind("murmur3_token_int64")
		enc := v.str("input_encoding")
		cqlType := v.str("cql_type")
		var key []shardkey.Value
		switch {
		case strings.HasPrefix(enc, "CompositeType"):
			types := strings.Split(strings.TrimSuffix(strings.TrimPrefix(cqlType, "("), ") composite"), ", ")
			parts, ok := v.m["input"].([]any)
			if !ok || len(parts) != len(types) {
				t.Fatalf("%s: composite input %v does not match %q", v.where(), v.m["input"], cqlType)
			}
			for i, p := range parts {
				key = append(key, cqlValue(t, v, types[i], p))
			}
		case strings.HasPrefix(enc, "CQL int"), strings.HasPrefix(enc, "CQL bigint"),
			strings.HasPrefix(enc, "CQL text"), strings.HasPrefix(enc, "CQL uuid"), enc == "hex bytes":
			key = []shardkey.Value{cqlValue(t, v, cqlType, v.m["input"])}
		default:
			t.Fatalf("%s: unknown input_encoding %q", v.where(), enc)
		}
		kb, err := appendCassandraKey(nil, key)
		if err != nil {
			t.Fatalf("%s: key bytes: %v", v.where(), err)
		}
		if got, want := hex.EncodeToString(kb), v.str("key_bytes_hex"); got != want {
			t.Errorf("%s: key bytes %s; want %s", v.where(), got, want)
		}
		want := v.int64("output")
		h, err := e.Hash(key)
		if err != nil || h != SignedHash(want) {
			t.Errorf("%s: Hash = %v, %v; want %d", v.where(), h, err, want)
		}
		p, err := e.Point(key)
		if err != nil || p != uint64(want)^1<<63 {
			t.Errorf("%s: Point = %d, %v; want token+2^63", v.where(), p, err)
		}
		if v.has("canonical_murmur3_x64_128_h1_would_give") {
			quirk++
			if got, w := int64(murmur3H1(kb, false)), v.int64("canonical_murmur3_x64_128_h1_would_give"); got != w {
				t.Errorf("%s: canonical murmur3 h1 = %d; want %d", v.where(), got, w)
			}
		}
		checked++
	})
	t.Logf("%s: %d vectors checked (%d with the signed-tail quirk)", file, checked, quirk)
}

func TestCassandra_SpecialTokens(t *testing.T) {
	if got := CassandraToken(""); got != math.MinInt64 {
		t.Errorf("CassandraToken(empty) = %d; want Long.MIN_VALUE", got)
	}
	if _, err := (Cassandra{}).Point([]shardkey.Value{{}}); !errors.Is(err, ErrNoDestination) {
		t.Errorf("Point(NULL) error = %v; want ErrNoDestination", err)
	}
	check := func(u uint64, want string) {
		t.Helper()
		if got := hex.EncodeToString(appendVarint(nil, u)); got != want {
			t.Errorf("appendVarint(%d) = %s; want %s", u, got, want)
		}
	}
	check(0, "00")
	check(127, "7f")
	check(128, "0080")
	check(math.MaxUint64, "00ffffffffffffffff")
}
