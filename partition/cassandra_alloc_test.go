package partition

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestCassandraAlloc_JavaTokens: the tokens equal those Cassandra's own
// allocator classes gave, run under a JVM (testdata/cassandra_alloc_java.txt
// says how they were produced).
func TestCassandraAlloc_JavaTokens(t *testing.T) {
	f, err := os.Open("testdata/cassandra_alloc_java.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	cases := 0
	var nt, rf, n int
	var first int64
	var want [][]int64
	for line := 1; sc.Scan(); line++ {
		txt := sc.Text()
		fs := strings.Fields(txt)
		switch {
		case txt == "" || strings.HasPrefix(txt, "#"):
		case fs[0] == "case":
			v := make([]int64, 4)
			for i := range v {
				if v[i], err = strconv.ParseInt(fs[i+1], 10, 64); err != nil {
					t.Fatalf("line %d: %v", line, err)
				}
			}
			nt, rf, n, first = int(v[0]), int(v[1]), int(v[2]), v[3]
			want = make([][]int64, n)
		case fs[0] == "end":
			cases++
			var ring []allocEntry
			for node := 0; node < n; node++ {
				got := allocateUnit(ring, node, nt, rf, first)
				for _, tok := range got {
					ring = append(ring, allocEntry{tok, node})
				}
				slices.SortFunc(ring, func(a, b allocEntry) int { return cmpInt64(a.token, b.token) })
				got = slices.Clone(got)
				slices.Sort(got)
				if !slices.Equal(got, want[node]) {
					t.Errorf("num_tokens=%d rf=%d node %d: tokens\n%v\nwant (Cassandra)\n%v", nt, rf, node, got, want[node])
				}
			}
		default:
			node, err1 := strconv.Atoi(fs[0])
			tok, err2 := strconv.ParseInt(fs[1], 10, 64)
			if err1 != nil || err2 != nil || node >= n {
				t.Fatalf("line %d: bad %q", line, txt)
			}
			want[node] = append(want[node], tok)
		}
	}
	if cases != 2 {
		t.Fatalf("%d cases read; want 2", cases)
	}
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// TestCassandraAlloc_TokenArithmetic: Murmur3Partitioner midpoint, split and
// size, hand-worked.
func TestCassandraAlloc_TokenArithmetic(t *testing.T) {
	const max, min = math.MaxInt64, math.MinInt64
	for _, c := range []struct{ l, r, want int64 }{
		{0, 10, 5},
		{-7, 0, -4}, // BigInteger.shiftRight floors: -7/2 -> -4
		// Wrapping: (max - min + l + r) >> 1 with max - min = 2^64-1, so
		// (2^64-1 + 2^63-2 - 2^63+2) >> 1 = 2^63-1.
		{max - 1, min + 2, max},
		// l == r is the whole ring: (2^64-1 + 10) >> 1 = 2^63+4, past max (2^63-1) by 5.
		{5, 5, min + 5},
	} {
		if got := murmurMidpoint(c.l, c.r); got != c.want {
			t.Errorf("midpoint(%d, %d) = %d; want %d", c.l, c.r, got, c.want)
		}
	}
	for _, c := range []struct {
		l, r  int64
		ratio float64
		want  int64
	}{
		{0, 1000, 0.25, 250},
		{-1000, 0, 0.3, -700},
		{-1000, 0, 0.3333, -666}, // -666.7 truncated toward zero (BigDecimal.toBigInteger)
		// Wrapping: l + (2^64-1 + r - l) * 0.5 = 100 + (2^64-1)/2 = 2^63 + 99.5 -> 2^63+99, past max (2^63-1) by 100.
		{100, 100, 0.5, min + 100},
	} {
		if got := murmurSplit(c.l, c.r, c.ratio); got != c.want {
			t.Errorf("split(%d, %d, %v) = %d; want %d", c.l, c.r, c.ratio, got, c.want)
		}
	}
	for _, c := range []struct {
		a, b int64
		want float64
	}{
		{0, 1 << 62, 0.25}, {1 << 62, 0, 0.75}, {7, 7, 1}, {min, max, 1 - math.Ldexp(1, -64)},
	} {
		if got := murmurSize(c.a, c.b); got != c.want {
			t.Errorf("size(%d, %d) = %v; want %v", c.a, c.b, got, c.want)
		}
	}
}

// TestCassandraAlloc_JavaRandom: java.util.Random's nextDouble, values any JVM
// prints for new Random(seed).nextDouble().
func TestCassandraAlloc_JavaRandom(t *testing.T) {
	for seed, want := range map[int64]float64{42: 0.7275636800328681, 0: 0.730967787376657} {
		if got := newJavaRandom(seed).nextDouble(); got != want {
			t.Errorf("new Random(%d).nextDouble() = %v; want %v", seed, got, want)
		}
	}
}

// cassandraReplicated returns each node's replicated ownership normalised so
// the mean is 1 (Cassandra's AbstractReplicationAwareTokenAllocatorTest
// updateSummary: ownership * tokens / rf / the node's tokens), with replicas
// placed as SimpleStrategy does in one rack: the owner of a range and the next
// rf-1 distinct nodes clockwise.
func cassandraReplicated(r *TokenRing, n, rf int) []float64 {
	own := make([]float64, n)
	m := len(r.tokens)
	for i := range r.tokens {
		size := float64(r.tokens[i]-r.tokens[(i-1+m)%m]) / math.Pow(2, 64)
		seen := map[int32]bool{}
		for j := i; len(seen) < min(rf, n); j = (j + 1) % m {
			if o := r.owner[j]; !seen[o] {
				seen[o] = true
				own[o] += size
			}
		}
	}
	for i := range own {
		own[i] *= float64(n) / float64(min(rf, n))
	}
	return own
}

// TestCassandraAlloc_Spread: Cassandra's test bound on the largest node's
// replicated ownership for a new cluster (test/long/.../
// AbstractReplicationAwareTokenAllocatorTest.grow: max <= 1 +
// spreadExpectation / (num_tokens * rf), spreadExpectation 4 for a fixed
// token count and SimpleReplicationStrategy), here for every ring size from
// 12 to 64 nodes; random tokens in the same run are worse.
func TestCassandraAlloc_Spread(t *testing.T) {
	const nt = 16
	for _, rf := range []int{2, 3, 5} {
		bound := 1 + 4.0/float64(nt*rf)
		alloc := mustLookup(t, fmt.Sprintf("cassandra(allocate=rf%d)", rf))
		random := mustLookup(t, "cassandra(allocate=random)")
		for n := 12; n <= 64; n++ {
			a := slices.Max(cassandraReplicated(mustLayout(t, alloc, n).(*TokenRing), n, rf))
			r := slices.Max(cassandraReplicated(mustLayout(t, random, n).(*TokenRing), n, rf))
			if a > bound {
				t.Errorf("rf=%d %d nodes: busiest node owns %.4f x the mean; Cassandra's test bound is %.4f", rf, n, a, bound)
			}
			if rf == 3 && (n == 12 || n == 32 || n == 64) {
				t.Logf("rf=3 %d nodes: busiest node's replicated ownership / mean: allocator %.3f, random %.3f", n, a, r)
				if r <= a {
					t.Errorf("rf=3 %d nodes: random tokens' busiest node %.4f not above the allocator's %.4f", n, r, a)
				}
			}
		}
	}
}

// TestCassandraAlloc_SpreadLarge: the same bound as Cassandra's test for its
// sizes (checked from 100 to 250 nodes) with 4 tokens per node.
func TestCassandraAlloc_SpreadLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("grows rings to 250 nodes")
	}
	const nt = 4
	for _, rf := range []int{2, 3} {
		bound := 1 + 4.0/float64(nt*rf)
		e := mustLookup(t, fmt.Sprintf("cassandra(num_tokens=%d, seed=5, allocate=rf%d)", nt, rf))
		for n := 100; n <= 250; n += 10 {
			if a := slices.Max(cassandraReplicated(mustLayout(t, e, n).(*TokenRing), n, rf)); a > bound {
				t.Errorf("rf=%d %d nodes: busiest node owns %.4f x the mean; Cassandra's test bound is %.4f", rf, n, a, bound)
			}
		}
	}
}

// TestCassandraAlloc_Tokens: every node gets exactly num_tokens distinct
// tokens, none Long.MIN_VALUE (excluded by Murmur3Partitioner.normalize),
// the same for the same seed and a prefix of a larger ring.
func TestCassandraAlloc_Tokens(t *testing.T) {
	for _, nt := range []int{1, 2, 16, 64} {
		e := mustLookup(t, fmt.Sprintf("cassandra(num_tokens=%d, seed=3, allocate=rf3)", nt))
		l := mustLayout(t, e, 20).(*TokenRing)
		count := make([]int, 20)
		for i, tok := range l.tokens {
			count[l.owner[i]]++
			if i > 0 && tok == l.tokens[i-1] {
				t.Errorf("num_tokens=%d: token %d twice", nt, int64(tok^1<<63))
			}
			if tok == 0 { // point of Long.MIN_VALUE
				t.Errorf("num_tokens=%d: Long.MIN_VALUE allocated", nt)
			}
		}
		for node, c := range count {
			if c != nt {
				t.Errorf("num_tokens=%d: node %d has %d tokens", nt, node, c)
			}
		}
		small := mustLayout(t, e, 7).(*TokenRing)
		have := map[uint64]int32{}
		for i, tok := range l.tokens {
			have[tok] = l.owner[i]
		}
		for i, tok := range small.tokens {
			if o, ok := have[tok]; !ok || o != small.owner[i] {
				t.Fatalf("num_tokens=%d: 7-node ring is not a prefix of the 20-node one", nt)
			}
		}
	}
	a := cassandraAllocTokens(16, 3, 8, 10)
	cassandraAllocCache.Delete(cassandraAllocKey{16, 3, 8})
	b := cassandraAllocTokens(16, 3, 8, 10)
	for i := range a {
		if !slices.Equal(a[i], b[i]) {
			t.Fatalf("seed 8: node %d's tokens differ between runs", i)
		}
	}
	if c := cassandraAllocTokens(16, 3, 9, 1); c[0][0] == a[0][0] {
		t.Error("seeds 8 and 9 give the same first token")
	}
}

// TestCassandraAlloc_Grow: a joining node gets the allocator's tokens; the
// others keep theirs and keys move only to it, and its replicated ownership
// is within Cassandra's bound.
func TestCassandraAlloc_Grow(t *testing.T) {
	e := mustLookup(t, "cassandra(allocate=rf3)").(Cassandra)
	for n := 3; n <= 24; n++ {
		old := mustLayout(t, e, n).(*TokenRing)
		gl, err := e.Grow(old, n+1)
		if err != nil {
			t.Fatal(err)
		}
		g := gl.(*TokenRing)
		have := map[uint64]int32{}
		for i, tok := range g.tokens {
			have[tok] = g.owner[i]
		}
		for i, tok := range old.tokens {
			if o, ok := have[tok]; !ok || o != old.owner[i] {
				t.Fatalf("%d->%d: token of node %d lost", n, n+1, old.owner[i])
			}
		}
		for k := int64(0); k < 2000; k++ {
			p := e.PointInt64(k)
			if a, b := old.Shard(p), g.Shard(p); a != b && b != n {
				t.Fatalf("%d->%d: key %d moved %d -> %d", n, n+1, k, a, b)
			}
		}
		if n+1 >= 12 {
			if s := cassandraReplicated(g, n+1, 3)[n]; s > 1+4.0/48 {
				t.Errorf("%d->%d: new node owns %.4f x the mean replicated ownership", n, n+1, s)
			}
		}
	}
}

func TestCassandraAlloc_Options(t *testing.T) {
	for spec, want := range map[string]string{
		"cassandra(allocate=random)": "cassandra(num_tokens=16, seed=1, allocate=random)",
		"cassandra(allocate=rf3)":    "cassandra", // the default, as cassandra.yaml of 4.0+ ships
		"cassandra(allocate=rf5)":    "cassandra(num_tokens=16, seed=1, allocate=rf5)",
	} {
		if got := mustLookup(t, spec).Name(); got != want {
			t.Errorf("%s: Name() = %q; want %q", spec, got, want)
		}
	}
	for _, bad := range []string{"cassandra(allocate=rf1)", "cassandra(allocate=rf0)", "cassandra(allocate=x)", "cassandra(allocate=rf65)"} {
		if _, err := Lookup(bad); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
	for nt, max := range map[int]int{16: 1024, 256: 256, 1: 4096} {
		if got := cassandraAllocMaxNodes(nt); got != max {
			t.Errorf("num_tokens=%d: at most %d nodes; want %d (n*n*num_tokens <= 2^24)", nt, got, max)
		}
	}
	if _, err := mustLookup(t, "cassandra(num_tokens=256, allocate=rf3)").Layout(257); err == nil || !strings.Contains(err.Error(), "allocate=random") {
		t.Errorf("Layout(257): error %v; want one naming allocate=random", err)
	}
	if _, err := mustLookup(t, "cassandra(allocate=random)").Layout(1025); err != nil {
		t.Error(err)
	}
}
