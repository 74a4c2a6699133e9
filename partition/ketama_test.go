package partition

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
)

func TestKetama_Grow(t *testing.T) {
	for n := 2; n <= 10; n++ {
		old := mustLayout(t, Ketama{}, n).(*KetamaLayout)
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
		l := mustLayout(t, Ketama{}, n).(*KetamaLayout)
		per := len(l.points) / n
		if per != 160 && per != 156 {
			t.Errorf("%d servers: %d points per server; want 160 or 156", n, per)
		}
	}
}

var reKetamaPool = regexp.MustCompile(`Server pool used by the project test: (.*?)\.?$`)

// ketamaPool parses the server pool named in the file's algorithm text:
// "host:port weight,host:port weight,...".
func ketamaPool(t *testing.T, algorithm string) []KetamaServer {
	t.Helper()
	m := reKetamaPool.FindStringSubmatch(algorithm)
	if m == nil {
		t.Fatal("ketama vectors: algorithm names no server pool")
	}
	var pool []KetamaServer
	for _, s := range strings.Split(m[1], ",") {
		var host string
		var port, weight int
		addr, w, ok := strings.Cut(strings.TrimSpace(s), " ")
		h, p, ok2 := strings.Cut(addr, ":")
		if !ok || !ok2 {
			t.Fatalf("ketama pool entry %q", s)
		}
		host = h
		var err error
		if port, err = strconv.Atoi(p); err != nil {
			t.Fatalf("ketama pool entry %q: %v", s, err)
		}
		if weight, err = strconv.Atoi(w); err != nil {
			t.Fatalf("ketama pool entry %q: %v", s, err)
		}
		pool = append(pool, KetamaServer{Host: host, Port: port, Weight: weight})
	}
	return pool
}

func checkKetamaVectors(t *testing.T, file string) {
	f := loadVectors(t, file)
	pool := ketamaPool(t, f.Algorithm)
	if len(pool) != 8 {
		t.Fatalf("ketama pool has %d servers; want the test's 8", len(pool))
	}
	lib, err := NewKetamaLayout(pool, false)
	if err != nil {
		t.Fatal(err)
	}
	spy, err := NewKetamaLayout(pool, true)
	if err != nil {
		t.Fatal(err)
	}
	e := Ketama{}
	// The same pool through the engine option, as a user names it.
	var entries []string
	for _, s := range pool {
		entries = append(entries, fmt.Sprintf("%s:%d:%d", s.Host, s.Port, s.Weight))
	}
	named := mustLookup(t, "ketama(servers="+strings.Join(entries, ",")+")")
	namedSpy := mustLookup(t, "ketama(variant=spy, servers="+strings.Join(entries, ",")+")")
	namedL, namedSpyL := mustLayout(t, named, len(pool)), mustLayout(t, namedSpy, len(pool))
	names := named.(Pool).ServerNames()
	checked := 0
	eachVec(t, f, func(v vec) {
		v.wantKind("server_host")
		if enc := v.str("input_encoding"); enc != "raw key bytes (ASCII)" {
			t.Fatalf("%s: unknown input_encoding %q", v.where(), enc)
		}
		key := []shardkey.Value{shardkey.TextValue(v.str("input"))}
		h, err := e.Hash(key)
		if err != nil {
			t.Fatal(err)
		}
		if v.has("key_hash_md5_u32") {
			if want := v.int64("key_hash_md5_u32"); h != UnsignedHash(uint64(want)) {
				t.Errorf("%s: Hash = %v; want %d", v.where(), h, want)
			}
		}
		p, _ := e.Point(key)
		s, point := lib.Locate(uint32(p))
		if got, want := lib.Server(s).Host, v.str("output"); got != want {
			t.Errorf("%s: server %s; want %s", v.where(), got, want)
		}
		if lib.Shard(p) != s {
			t.Errorf("%s: Shard disagrees with Locate", v.where())
		}
		if v.has("continuum_point") {
			if want := v.int64("continuum_point"); int64(point) != want {
				t.Errorf("%s: continuum point %d; want %d", v.where(), point, want)
			}
		}
		if got, want := spy.Server(spy.Shard(p)).Host, v.str("server_spymemcached_compatible"); got != want {
			t.Errorf("%s: spy server %s; want %s", v.where(), got, want)
		}
		np, err := named.Point(key)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := names[namedL.Shard(np)], v.str("output")+":11211"; got != want {
			t.Errorf("%s: ketama(servers=...) server %s; want %s", v.where(), got, want)
		}
		if got, want := names[namedSpyL.Shard(np)], v.str("server_spymemcached_compatible")+":11211"; got != want {
			t.Errorf("%s: ketama(variant=spy, servers=...) server %s; want %s", v.where(), got, want)
		}
		checked++
	})
	t.Logf("%s: %d vectors checked (libmemcached and spymemcached servers)", file, checked)
}
