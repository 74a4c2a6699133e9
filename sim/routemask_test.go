package sim

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/cespare/xxhash/v2"

	"github.com/shardkey/shardkey"
)

// TestRowsModulo: rows routed under the default engine land on
// XXH64(key bytes) mod N, for N a power of two (routed with a mask) and
// not, for an integer key (its 8 little-endian bytes) and a compound one
// (the integer's 8 bytes, then the text's length as a uvarint and its
// bytes): each shard's load is the sum of its rows' weights, computed
// here from the hash's definition, in row order.
func TestRowsModulo(t *testing.T) {
	const rows = 5000
	tb := &shardkey.Table{Name: "t", Rows: rows}
	id := &shardkey.Column{Name: "id", Type: shardkey.Int64}
	tag := &shardkey.Column{Name: "tag", Type: shardkey.Text}
	for i := 0; i < rows; i++ {
		id.Ints = append(id.Ints, int64(i*7919-3000))
		tag.Strs = append(tag.Strs, fmt.Sprint("m", i%13))
		tb.Weights = append(tb.Weights, float64(1+i%5))
	}
	tb.Columns = []*shardkey.Column{id, tag}
	w := &shardkey.Workload{Tables: []*shardkey.Table{tb}}
	for _, n := range []int{1, 2, 3, 48, 64, 100, 128} {
		for _, key := range []string{"hash(id)", "hash(id, tag)"} {
			want := make([]float64, n)
			for i := 0; i < rows; i++ {
				b := binary.LittleEndian.AppendUint64(nil, uint64(id.Ints[i]))
				if key != "hash(id)" {
					b = binary.AppendUvarint(b, uint64(len(tag.Strs[i])))
					b = append(b, tag.Strs[i]...)
				}
				want[xxhash.Sum64(b)%uint64(n)] += tb.Weights[i]
			}
			d, _ := shardkey.ParseDesign(key)
			s, err := Compile(w, d, Options{Shards: n})
			if err != nil {
				t.Fatal(err)
			}
			p, err := Run(w, s, 2)
			if err != nil {
				t.Fatal(err)
			}
			for sh := range want {
				if p.Load[sh] != want[sh] {
					t.Errorf("%s, %d shards: shard %d load %v, want %v", key, n, sh, p.Load[sh], want[sh])
					break
				}
			}
		}
	}
}

// TestFreeList: values come back last in, first out, from any goroutine,
// and at most freeListMax are kept.
func TestFreeList(t *testing.T) {
	var l freeList[int]
	if _, ok := l.get(); ok {
		t.Fatal("a value from an empty list")
	}
	done := make(chan bool)
	go func() {
		for i := 1; i <= freeListMax+2; i++ {
			l.put(i)
		}
		done <- true
	}()
	<-done
	for want := freeListMax; want >= 1; want-- {
		if v, ok := l.get(); !ok || v != want {
			t.Fatalf("get = %d, %v; want %d", v, ok, want)
		}
	}
	if v, ok := l.get(); ok {
		t.Errorf("get = %d after %d values; want none (at most %d kept)", v, freeListMax, freeListMax)
	}
}
