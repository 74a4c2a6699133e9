package sim

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"weak"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/partition"
)

// TestMemoEngine: the memo's point of every key equals the engine's own,
// for keys the rows hold (looked up, also from several goroutines at
// once) and keys they do not (a value outside the rows, a value of
// another type), over one integer column and over (integer, text).
func TestMemoEngine(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	n := 5000
	tab := &shardkey.Table{Name: "t", Rows: n}
	id := &shardkey.Column{Name: "id", Type: shardkey.Int64, Ints: make([]int64, n)}
	m := &shardkey.Column{Name: "m", Type: shardkey.Text, Strs: make([]string, n)}
	for i := range n {
		id.Ints[i] = int64(rng.IntN(3000)) - 1000
		m.Strs[i] = []string{"2024-01", "2024-02", "x"}[rng.IntN(3)]
	}
	tab.Columns = []*shardkey.Column{id, m}
	eng, err := partition.Lookup("blake2b")
	if err != nil {
		t.Fatal(err)
	}
	for _, cols := range [][]int{{0}, {0, 1}} {
		me, ok := memoize(eng, tab, cols).(*memoEngine)
		if !ok {
			t.Fatalf("cols %v: no memo", cols)
		}
		keys := [][]shardkey.Value{}
		for i := range 20000 {
			var k []shardkey.Value
			r := rng.IntN(n)
			switch i % 4 {
			case 0, 1: // a row's key
				k = []shardkey.Value{shardkey.IntValue(id.Ints[r]), shardkey.TextValue(m.Strs[r])}
			case 2: // values the rows lack
				k = []shardkey.Value{shardkey.IntValue(int64(rng.IntN(10000)) - 5000), shardkey.TextValue("2025-01")}
			case 3: // another type
				k = []shardkey.Value{{Type: shardkey.Int32, Int: id.Ints[r]}, {Type: shardkey.Bytes, Str: m.Strs[r]}}
			}
			keys = append(keys, k[:len(cols)])
		}
		me.withShards(7)
		var wg sync.WaitGroup
		for g := range 4 {
			wg.Go(func() {
				for _, k := range keys {
					want, err2 := eng.Point(k)
					if g%2 == 1 { // the shard table, under modulo 7
						sh, ok, err1 := me.shard(k)
						if ok && (sh != int(want%7) || err1 != nil) {
							t.Errorf("cols %v, key %v: memo shard %d (%v), engine %d mod 7 (%v)", cols, k, sh, err1, want%7, err2)
							return
						}
					}
					got, err1 := me.Point(k)
					if got != want || (err1 == nil) != (err2 == nil) {
						t.Errorf("cols %v, key %v: memo %d (%v), engine %d (%v)", cols, k, got, err1, want, err2)
						return
					}
				}
			})
		}
		wg.Wait()
		// Rows routed by their codes land where the engine puts them.
		ids := make([]int32, n)
		if err := me.rows(tab, cols, 0, n, 7, ids, make([]shardkey.Value, len(cols))); err != nil {
			t.Fatal(err)
		}
		for i := range n {
			k := []shardkey.Value{shardkey.IntValue(id.Ints[i]), shardkey.TextValue(m.Strs[i])}[:len(cols)]
			if p, _ := eng.Point(k); ids[i] != int32(p%7) {
				t.Fatalf("cols %v, row %d: shard %d, engine's point mod 7 is %d", cols, i, ids[i], p%7)
			}
		}
	}
	// Cheap engines are not memoised: their hash costs less than a lookup.
	g, _ := partition.Lookup("generic")
	if _, ok := memoize(g, tab, []int{0}).(*memoEngine); ok {
		t.Error("generic memoised")
	}
}

// countingEngine counts the points it computes.
type countingEngine struct {
	partition.Engine
	n atomic.Int64
}

func (c *countingEngine) Point(key []shardkey.Value) (uint64, error) {
	c.n.Add(1)
	return c.Engine.Point(key)
}

// TestMemoFill: the first lookup of a memo with a shard table fills it for
// every key value the rows hold, each distinct value's point computed
// exactly once (counted), so that statements and rows then find every row
// value's shard known, and equal to the engine's point mod 7. Keys over
// one integer column (a shard per value), one text column and (integer,
// text) (a shard per slot).
func TestMemoFill(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n := 50000 // several fill chunks
	tab := &shardkey.Table{Name: "t", Rows: n}
	id := &shardkey.Column{Name: "id", Type: shardkey.Int64, Ints: make([]int64, n)}
	m := &shardkey.Column{Name: "m", Type: shardkey.Text, Strs: make([]string, n)}
	for i := range n {
		id.Ints[i] = int64(rng.IntN(3000)) - 1000
		m.Strs[i] = fmt.Sprint("2024-", rng.IntN(12))
	}
	tab.Columns = []*shardkey.Column{id, m}
	base, err := partition.Lookup("blake2b")
	if err != nil {
		t.Fatal(err)
	}
	for _, cols := range [][]int{{0}, {1}, {0, 1}} {
		key := func(i int) []shardkey.Value {
			return []shardkey.Value{shardkey.IntValue(id.Ints[i]), shardkey.TextValue(m.Strs[i])}[cols[0] : cols[len(cols)-1]+1]
		}
		distinct := map[string]bool{}
		for i := range n {
			distinct[fmt.Sprint(key(i))] = true
		}
		eng := &countingEngine{Engine: base}
		me, ok := memoize(eng, tab, cols).(*memoEngine)
		if !ok {
			t.Fatalf("cols %v: no memo", cols)
		}
		me.withShards(7)
		// One statement looked up, the rows not to be routed (explain):
		// its point alone.
		if _, _, err := me.shard(key(0)); err != nil {
			t.Fatal(err)
		}
		other := 1
		for fmt.Sprint(key(other)) == fmt.Sprint(key(0)) {
			other++
		}
		if _, ok := me.known(key(other)); ok {
			t.Errorf("cols %v: row %d's shard known before a fill", cols, other)
		}
		if got := eng.n.Load(); got != 1 {
			t.Errorf("cols %v: %d points computed for one statement", cols, got)
		}
		eng.n.Store(0)
		me.whole.Store(true) // every row to be routed (Run, NewStream)
		if _, _, err := me.shard(key(0)); err != nil {
			t.Fatal(err)
		}
		if got := eng.n.Load(); got != int64(len(distinct))-1 {
			t.Errorf("cols %v: %d points filled for %d distinct values less the one known", cols, got, len(distinct))
		}
		for i := range n {
			at, ok := me.slot(key(i))
			if me.byVal {
				at = uint64(id.Ints[i]) - uint64(me.cols[0].lo)
			}
			s, known := me.shardOf(at)
			p, _ := base.Point(key(i))
			if !ok || !known || s != int(p%7) {
				t.Fatalf("cols %v, row %d: shard %d (known %v), engine's point mod 7 is %d", cols, i, s, known, p%7)
			}
		}
		// Routing the rows and every row's key computes nothing more.
		ids := make([]int32, n)
		if err := me.rows(tab, cols, 0, n, 7, ids, make([]shardkey.Value, len(cols))); err != nil {
			t.Fatal(err)
		}
		for i := range n {
			if _, _, err := me.shard(key(i)); err != nil {
				t.Fatal(err)
			}
		}
		if got := eng.n.Load(); got != int64(len(distinct))-1 {
			t.Errorf("cols %v: %d points computed after routing, for %d distinct values less the one known", cols, got, len(distinct))
		}
	}
}

// TestMemoFillPointer: a fill through the engine's own pointer (blake2b's
// NewPointer, a hasher per fill worker; PointInt64 for an integer column)
// and the shard bytes gathered four to a table word leave every row's
// point and shard equal to the engine's Point and its point mod 7. Keys
// over one Int64 column (by value, over several fill chunks: values
// -1000 to 60,000), one Int32 and one Timestamp column (by value: not
// an Int64's text, Value.AppendText's), and (integer, text) (by slot).
func TestMemoFillPointer(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	n := 50000
	tab := &shardkey.Table{Name: "t", Rows: n}
	id := &shardkey.Column{Name: "id", Type: shardkey.Int64, Ints: make([]int64, n)}
	small := &shardkey.Column{Name: "small", Type: shardkey.Int32, Ints: make([]int64, n)}
	ts := &shardkey.Column{Name: "ts", Type: shardkey.Timestamp, Ints: make([]int64, n)}
	m := &shardkey.Column{Name: "m", Type: shardkey.Text, Strs: make([]string, n)}
	for i := range n {
		id.Ints[i] = int64(rng.IntN(61000)) - 1000
		small.Ints[i] = int64(rng.IntN(3000)) - 1500
		ts.Ints[i] = 1_700_000_000_000_000 + int64(rng.IntN(40000))
		m.Strs[i] = fmt.Sprint("2024-", rng.IntN(12))
	}
	tab.Columns = []*shardkey.Column{id, small, ts, m}
	eng, err := partition.Lookup("blake2b")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := eng.(partition.PointerMaker); !ok {
		t.Fatal("blake2b has no pointer of its own: this test checks nothing")
	}
	for _, cols := range [][]int{{0}, {1}, {2}, {1, 3}} {
		key := func(i int) []shardkey.Value {
			k := make([]shardkey.Value, len(cols))
			for j, c := range cols {
				k[j] = tab.Columns[c].Value(i)
			}
			return k
		}
		me, ok := memoize(eng, tab, cols).(*memoEngine)
		if !ok {
			t.Fatalf("cols %v: no memo", cols)
		}
		me.withShards(7)
		if len(cols) == 1 && !me.byVal || len(cols) > 1 && me.byVal {
			t.Fatalf("cols %v: by value %v", cols, me.byVal)
		}
		me.whole.Store(true)
		me.fill()
		for i := range n {
			want, _ := eng.Point(key(i))
			slot, ok := me.slot(key(i))
			at := slot
			if me.byVal {
				at = uint64(tab.Columns[cols[0]].Ints[i]) - uint64(me.cols[0].lo)
			}
			s, known := me.shardOf(at)
			if !ok || !known || s != int(want%7) {
				t.Fatalf("cols %v, row %d (%v): shard %d (known %v), engine's point mod 7 is %d", cols, i, key(i), s, known, want%7)
			}
			if p := me.pts[slot].Load(); p != want {
				t.Fatalf("cols %v, row %d (%v): point %d, engine's %d", cols, i, key(i), p, want)
			}
		}
	}
}

// TestPrepareMemos: PrepareMemos numbers every key column a costly
// engine's memo will number, for COL and TABLE.COL names, so that
// memoize finds each column done (the very numbering it would compute:
// the same codes, by first appearance); it numbers nothing for an engine
// that is not costly, nor a column no table has.
func TestPrepareMemos(t *testing.T) {
	n := 1000
	mk := func(name string) *shardkey.Table {
		tab := &shardkey.Table{Name: name, Rows: n}
		a := &shardkey.Column{Name: "a", Type: shardkey.Int64, Ints: make([]int64, n)}
		b := &shardkey.Column{Name: "b", Type: shardkey.Text, Strs: make([]string, n)}
		c := &shardkey.Column{Name: "c", Type: shardkey.Int64, Ints: make([]int64, n)}
		for i := range n {
			a.Ints[i] = int64((i * 7) % 300)
			b.Strs[i] = fmt.Sprint("m", i%13)
			c.Ints[i] = int64(i)
		}
		tab.Columns = []*shardkey.Column{a, b, c}
		return tab
	}
	cached := func(tab *shardkey.Table, c int) *memoCol {
		k := memoKey{weak.Make(tab), tab.Rows, fmt.Sprint("memocol", c)}
		memoTable.Lock()
		defer memoTable.Unlock()
		v, _ := memoTable.m[k].(*memoCol)
		return v
	}
	generic, err := partition.Lookup("generic")
	if err != nil {
		t.Fatal(err)
	}
	blake, err := partition.Lookup("blake2b")
	if err != nil {
		t.Fatal(err)
	}
	t1, t2 := mk("t1"), mk("t2")
	w := &shardkey.Workload{Tables: []*shardkey.Table{t1, t2}}
	PrepareMemos(w, generic, []string{"a", "b"})
	for _, tab := range w.Tables {
		for c := range 3 {
			if cached(tab, c) != nil {
				t.Errorf("generic: %s column %d numbered", tab.Name, c)
			}
		}
	}
	PrepareMemos(w, blake, []string{"a", "t2.b", "nosuch", "t9.c"})
	for _, x := range []struct {
		tab  *shardkey.Table
		c    int
		want bool
	}{{t1, 0, true}, {t2, 0, true}, {t2, 1, true}, {t1, 1, false}, {t1, 2, false}, {t2, 2, false}} {
		got := cached(x.tab, x.c)
		if (got != nil) != x.want {
			t.Errorf("%s column %d: numbered %v, want %v", x.tab.Name, x.c, got != nil, x.want)
			continue
		}
		if got == nil {
			continue
		}
		// First appearance: a's values 0, 7, 14, ... are numbered 0,
		// 1, 2, ...; b's m0..m12 likewise.
		for i := range 10 {
			if got.codes[i] != uint32(i) {
				t.Errorf("%s column %d: row %d numbered %d, want %d", x.tab.Name, x.c, i, got.codes[i], i)
			}
		}
		if want := map[int]uint64{0: 300, 1: 13}[x.c]; got.span != want {
			t.Errorf("%s column %d: %d distinct values, want %d", x.tab.Name, x.c, got.span, want)
		}
		me, ok := memoize(blake, x.tab, []int{x.c}).(*memoEngine)
		if !ok || me.cols[0] != got {
			t.Errorf("%s column %d: memoize did not use the prepared numbering", x.tab.Name, x.c)
		}
	}
}

// TestMemoTouch: touchAt notes exactly the words that known then reads.
// Rows: ids 10, 12, 10, 17 with months "a", "b", "a", "b". A key on id
// alone is kept by value (index id - 10: 0, 2 and 7, words 0, 0 and 1 of
// four shards each); on (id, month) by slot, id numbered by first
// appearance (10 -> 0, 12 -> 1, 17 -> 2) times 2 months plus the month's
// number ("a" 0, "b" 1): (17, "b") is slot 5, word 1, and pass 0 notes
// id 17's entry of the value-to-number table (index 7).
func TestMemoTouch(t *testing.T) {
	tab := &shardkey.Table{Name: "t", Rows: 4, Columns: []*shardkey.Column{
		{Name: "id", Type: shardkey.Int64, Ints: []int64{10, 12, 10, 17}},
		{Name: "m", Type: shardkey.Text, Strs: []string{"a", "b", "a", "b"}},
	}}
	eng, err := partition.Lookup("blake2b")
	if err != nil {
		t.Fatal(err)
	}
	one := memoize(eng, tab, []int{0}).(*memoEngine)
	one.withShards(4)
	if !one.byVal {
		t.Fatal("one integer column: want the shard table by value")
	}
	var at touches
	for _, v := range []int64{10, 12, 17, 9, 18} { // 9 and 18: outside the rows' span
		one.touchAt(&at, []shardkey.Value{shardkey.IntValue(v)}, 0)
		one.touchAt(&at, []shardkey.Value{shardkey.IntValue(v)}, 1) // nothing in pass 1
	}
	if len(at.sh) != 3 || at.sh[0] != &one.sh[0] || at.sh[1] != &one.sh[0] || at.sh[2] != &one.sh[1] || len(at.num) != 0 {
		t.Errorf("by value: noted %d shard words, %d numbers; want words 0, 0, 1", len(at.sh), len(at.num))
	}
	at.load()
	if len(at.sh)+len(at.num) != 0 {
		t.Error("load does not empty the list")
	}

	two := memoize(eng, tab, []int{0, 1}).(*memoEngine)
	two.withShards(4)
	if two.byVal || two.cols[0].span != 3 || two.cols[1].span != 2 {
		t.Fatal("two columns: want slots of 3 ids x 2 months")
	}
	key := []shardkey.Value{shardkey.IntValue(17), shardkey.TextValue("b")}
	two.touchAt(&at, key, 0)
	if len(at.sh) != 0 || len(at.num) != 1 || at.num[0] != &two.cols[0].num[7] {
		t.Errorf("pass 0: noted %d shard words, %d numbers; want id 17's number (index 7)", len(at.sh), len(at.num))
	}
	at.load()
	two.touchAt(&at, key, 1)
	if len(at.sh) != 1 || at.sh[0] != &two.sh[1] || len(at.num) != 0 {
		t.Errorf("pass 1: noted %d shard words, %d numbers; want slot 5's word 1", len(at.sh), len(at.num))
	}
	at.load()
	// A key the rows lack notes nothing in pass 1.
	two.touchAt(&at, []shardkey.Value{shardkey.IntValue(11), shardkey.TextValue("b")}, 1)
	two.touchAt(&at, []shardkey.Value{shardkey.IntValue(17), shardkey.TextValue("c")}, 1)
	if len(at.sh)+len(at.num) != 0 {
		t.Errorf("keys the rows lack: noted %d words", len(at.sh)+len(at.num))
	}
	// What was noted is what known reads: after a fill, the shard known
	// holds is the engine's.
	two.whole.Store(true)
	sh, ok := two.known(key)
	p, _ := eng.Point(key)
	if !ok || sh != int(p%4) {
		t.Errorf("known: %d, %v; want %d", sh, ok, p%4)
	}
}
