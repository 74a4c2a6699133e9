package sim

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/partition"
)

// The shortcuts of stmtTo, singleProb and stmtKey (plain, keyShard,
// keyMissing) must route every statement as stmt does without them
// (stmtKey's enumeration of the key's values): that general path is the
// oracle, on statements the shortcuts take and on those they
// must leave to it (IN lists, ranges, fresh values, NULLs, missing key
// columns, inserts, updates that set values, lookups, salted, isolated,
// range, directory and replicated keys, a memoised engine).

// plainStmts returns statements on exactWorkload's tables: its own
// instances and transactions' statements, and more of every shape.
func plainStmts(w *shardkey.Workload, rng *rand.Rand) []shardkey.Stmt {
	var out []shardkey.Stmt
	for _, op := range w.Ops {
		for _, in := range op.Instances {
			out = append(out, shardkey.Stmt{Table: op.Table, Kind: op.Kind, Conds: in.Conds, Sets: in.Sets})
		}
	}
	for _, tx := range w.Txns {
		out = append(out, tx.Stmts...)
	}
	id := func() shardkey.Cond {
		return shardkey.Cond{Col: 0, Op: shardkey.Eq, Val: shardkey.IntValue(rng.Int64N(320))}
	}
	grp := func() shardkey.Cond {
		return shardkey.Cond{Col: 1, Op: shardkey.Eq, Val: shardkey.TextValue(fmt.Sprintf("g%d", rng.IntN(9)))}
	}
	null := func(col int) shardkey.Cond {
		return shardkey.Cond{Col: col, Op: shardkey.Eq, Val: shardkey.Value{Type: shardkey.Null}}
	}
	fresh := func(col int) shardkey.Cond {
		return shardkey.Cond{Col: col, Op: shardkey.Eq, Fresh: shardkey.FreshUnique, FreshVar: int32(rng.IntN(3))}
	}
	in := func(col int) shardkey.Cond {
		c := shardkey.Cond{Col: col, Op: shardkey.In}
		for range rng.IntN(4) {
			c.List = append(c.List, shardkey.IntValue(rng.Int64N(320)))
		}
		return c
	}
	for _, kind := range []shardkey.Kind{shardkey.Read, shardkey.Insert, shardkey.Update, shardkey.Delete} {
		for _, conds := range [][]shardkey.Cond{
			{id()}, {grp()}, {id(), grp()}, {grp(), id()}, {}, {null(0)}, {null(1), id()},
			{fresh(0)}, {fresh(0), grp()}, {id(), fresh(1)}, {in(0)}, {grp(), in(0)}, {in(0), grp()},
			{{Col: 0, Op: shardkey.Range, Bounds: &shardkey.Bounds{HasLo: true, Lo: shardkey.IntValue(10)}}},
			{grp(), {Col: 0, Op: shardkey.Range, Bounds: &shardkey.Bounds{HasHi: true, Hi: shardkey.IntValue(10)}}},
			{{Col: 0, Op: shardkey.Eq, Val: shardkey.TextValue("7")}}, // a value of another type
			{id(), id()}, // a column twice
		} {
			out = append(out, shardkey.Stmt{Table: 0, Kind: kind, Conds: conds})
			out = append(out, shardkey.Stmt{Table: 1, Kind: kind, Conds: conds[:min(len(conds), 1)]})
		}
		if kind == shardkey.Update {
			out = append(out, shardkey.Stmt{Table: 0, Kind: kind, Conds: []shardkey.Cond{id()}, Sets: []shardkey.Cond{id()}},
				shardkey.Stmt{Table: 0, Kind: kind, Conds: []shardkey.Cond{id(), grp()}, Sets: []shardkey.Cond{grp()}})
		}
	}
	return out
}

// plainDesigns are keys of every kind on exactWorkload.
var plainDesigns = []string{
	"hash(id)",
	"hash(grp)",
	"t: hash(grp, id); r: replicate",
	"t: hash(id, grp); r: hash(code)",
	"range(id, bounds=[40, 80, 120, 160, 200, 240, 280])",
	"salt(hash(id), 4, top=2)",
	"isolate(hash(id), top=1)",
	"t: hash(id), lookup(grp); r: replicate",
	"t: directory(id, dir.csv); r: hash(code)",
}

// plainCompile compiles design d on w, its directory file in a
// temporary directory.
func plainCompile(t *testing.T, w *shardkey.Workload, d string, eng partition.Engine) *Scheme {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "dir.csv"), []byte("value,shard\n3,1\n4,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ds, err := shardkey.ParseDesign(d)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Compile(w, ds, Options{Shards: 8, Engine: eng, Dir: dir})
	if _, ok := eng.(noPlace); ok && err != nil {
		return nil // (it places only the value 1: most keys do not compile)
	}
	if err != nil {
		t.Fatalf("%s: %v", d, err)
	}
	return s
}

// cloneTouch copies the router's scratch out of t.
func cloneTouch(t touch) touch {
	t.set = slices.Clone(t.set)
	t.lks = slices.Clone(t.lks)
	return t
}

func TestPlainRoutesMatchStmt(t *testing.T) {
	defer func() { plainRoutes = true }()
	w := exactWorkload()
	stmts := plainStmts(w, rand.New(rand.NewPCG(5, 6)))
	took := 0
	for _, eng := range []partition.Engine{nil, partition.Blake2b{}, noPlace{}} {
		for _, d := range plainDesigns {
			s := plainCompile(t, w, d, eng)
			if s == nil {
				continue
			}
			r := newRouter(s)
			for i, st := range stmts {
				plainRoutes = false
				want, werr := r.stmt(st.Table, st.Kind, st.Conds, st.Sets)
				plainRoutes = true
				want = cloneTouch(want)
				var got touch
				gerr := r.stmtTo(&got, st.Table, st.Kind, st.Conds, st.Sets)
				if fmt.Sprint(werr) != fmt.Sprint(gerr) || !reflect.DeepEqual(want, cloneTouch(got)) {
					t.Errorf("%s, engine %v, statement %d %+v: stmtTo %+v (%v); stmt %+v (%v)", d, eng, i, st, got, gerr, want, werr)
				}
				if _, ok := r.plainShard(st.Table, st.Kind, st.Conds, st.Sets); ok {
					took++
				} else if tk := s.tables[st.Table]; plain(tk, st.Kind, st.Conds, st.Sets) {
					if _, ok := keyMissing(tk, st.Kind, st.Conds); ok {
						took++
					}
				}
			}
		}
	}
	if took < len(stmts) {
		t.Errorf("the shortcuts took %d statements of %d x %d: too few to test them", took, len(stmts), 3*len(plainDesigns))
	}
}

// TestPlainRoutesReports: whole reports (transactions' single-shard
// probability included) are the same bytes with the shortcuts and
// without, streamed and run.
func TestPlainRoutesReports(t *testing.T) {
	w := exactWorkload()
	// Transactions with inserts that leave a key column out, NULL keys
	// and repeated writes, beside exactWorkload's.
	rng := rand.New(rand.NewPCG(7, 8))
	for _, st := range plainStmts(w, rng)[len(w.Txns):] {
		if st.Kind == shardkey.Read || len(st.Sets) > 0 {
			continue
		}
		rep := shardkey.Stmt{Table: st.Table, Kind: st.Kind, Conds: st.Conds}
		w.Txns = append(w.Txns, shardkey.Txn{Weight: 1, Stmts: []shardkey.Stmt{st, rep, rep}})
	}
	reports := func() [][]byte {
		var out [][]byte
		for _, eng := range []partition.Engine{nil, partition.Blake2b{}} {
			ws := withoutSamples(w)
			var schemes []*Scheme
			for _, d := range plainDesigns {
				if s := plainCompile(t, ws, d, eng); s != nil {
					schemes = append(schemes, s)
				}
			}
			st := NewStream(schemes)
			streamWorkload(t, st, w, 300, 9)
			for i, s := range schemes {
				q, err := st.Total(i, 2)
				if err != nil {
					t.Fatal(err)
				}
				b, _ := json.Marshal(s.Report(q))
				out = append(out, b)
			}
		}
		return out
	}
	with := reports()

	plainRoutes = false
	defer func() { plainRoutes = true }()
	without := reports()
	for i := range with {
		if string(with[i]) != string(without[i]) {
			t.Errorf("report %d: with and without the shortcuts differ at %s", i, jsonDiff(without[i], with[i], 0))
		}
	}
}
