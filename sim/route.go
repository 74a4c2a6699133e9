package sim

import (
	"errors"
	"slices"
	"sort"
	"strconv"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/partition"
)

// touchKind says which shards one operation instance touches.
type touchKind uint8

const (
	tOne       touchKind = iota // exactly shard `one`
	tSet                        // every shard in `set` (IN lists, salted reads, range spans)
	tAll                        // every shard: scatter-gather
	tUniform                    // one shard, uniformly at random over all (a fresh hashed value, a replicated read)
	tUniformOf                  // one shard, uniformly at random over `set` (a salted insert, a fresh value in a range span)
	// tUniformN is a list of values known only at run time (IN ($1, $2)
	// without the parameters' values): the shards in `set` (its known
	// values') and, for each of its `n` unknown values, a shard drawn
	// uniformly from all of them; n < 0: a list of unknown length
	// (IN ::list), at most every shard.
	tUniformN
)

// touch is the result of routing one statement. set is scratch owned by
// the router that produced it and valid until its next call.
type touch struct {
	kind touchKind
	one  int
	set  []int
	// local marks a read of a reference table: answered on whichever
	// shard the transaction is on, so it never makes one cross shards.
	local bool
	// unbound marks a tUniform touch of an insert that does not give
	// its key columns a value (the row gets a default, placed at random).
	unbound bool
	// varKey identifies the random variable of a tUniform touch: two
	// touches with the same non-empty varKey land on the same shard; an
	// empty varKey is a variable of its own.
	varKey string
	// salted says a salted hot value is among the values routed (its
	// buckets are in set), for explanations.
	salted bool
	// lks are the lookups' parts of the statement (see lookup.go):
	// scratch owned by the router, like set.
	lks []lkTouch
	// n is a tUniformN touch's count of unknown values.
	n int
	// vread marks an UPDATE that assigns an owned lookup's column: vtgate
	// reads the rows first (SELECT ... FOR UPDATE) on every shard the
	// update asks, one more unit on each (see updateLookups).
	vread bool
	// keyed marks a tAll touch that names its keys but too many to
	// enumerate (an IN cross product beyond maxCombos): counted at every
	// shard, it is no keyless scatter (Partial.WorkKeyless).
	keyed bool
	// merged marks a read that rides in the route of another table's
	// read of the same statement (a join Vitess merges into the route
	// the other table's lookup picks: router.lookupMerged): its rows'
	// work and fan-out count, but it is no request of its own.
	merged bool
	// union, on the first read of a multi-table SELECT
	// (shardkey.Instance.Parts), is the distribution of the number of
	// shards the whole statement asks (union[f]: the probability of f):
	// its per-statement fan-out (OpPartial.Stmt). nil otherwise.
	union []float64
	// mv says an UPDATE assigns the table's key and moves its row
	// (move.go): to shard mvOne (mvOne), or one at random (mvAny).
	mv    uint8
	mvOne int
}

// fanout returns the number of shards the touch asks.
func (t *touch) fanout(n int) int {
	switch t.kind {
	case tSet:
		f := len(t.set)
		for i := range t.lks {
			f += t.lks[i].extra
		}
		return f
	case tAll:
		return n
	}
	return 1
}

// router routes statements under a Scheme. It holds scratch space, so a
// router is used by one goroutine.
type router struct {
	s   *Scheme
	key []shardkey.Value
	// mhCol's rows' MongoDB hashed values (mongoHashes), for row: the
	// column last asked for, nil hashes when a value cannot be hashed.
	mhCol *shardkey.Column
	mh    []int64
	buf   []byte
	set   []int
	mark  []bool
	tmp   []int
	// scratch for stmt
	vals  [][]shardkey.Value
	one   []shardkey.Value
	idx   []int
	combo []shardkey.Value
	fkey  []byte
	// mvConds is move's scratch: the moved row's key conditions.
	mvConds []shardkey.Cond
	bbuf    []byte            // byBucket's scratch
	bone    [1]shardkey.Value // byVals' scratch
	// unbound counts the transactions' inserts that gave no key value
	// (see touch.unbound), until the caller takes it.
	unbound int64
	// nullRows counts rows whose NULL key the engine cannot place.
	nullRows int64
	// scratch for viaLookups
	lks  []lkTouch
	lset []int
	// sawLookup: the last singleProb met lookup shards in the
	// transaction's session.
	sawLookup bool
	// umark and umarked are union's scratch (join.go).
	umark   []bool
	umarked []int
	// nodeSeen and nodeStamp are Partial.nodeTouch's scratch.
	nodeSeen  []uint32
	nodeStamp uint32
}

func newRouter(s *Scheme) *router {
	return &router{s: s, mark: make([]bool, s.N)}
}

// home returns the shard of a full key tuple under tk, without salting.
func (r *router) home(tk *tableKey, key []shardkey.Value) (int, error) {
	if tk.iso != nil {
		r.buf = keyString(r.buf[:0], key)
		if sh, ok := tk.iso[string(r.buf)]; ok {
			return sh, nil
		}
	}
	switch tk.kind {
	case kRange:
		return rangeShard(tk.bounds, key, 0), nil
	case kDirectory:
		if sh, ok := tk.dir[key[0].Canonical()]; ok {
			return sh, nil
		}
	}
	if tk.memo != nil && tk.memo.sh != nil {
		if sh, ok, err := tk.memo.shard(key); ok || err != nil {
			return sh, err
		}
	}
	p, err := tk.eng.Point(key)
	if err != nil {
		return 0, err
	}
	if tk.modN > 0 {
		return int(p % tk.modN), nil
	}
	return tk.layout.Shard(p), nil
}

// isSalted reports whether key is one of tk's salted hot values.
func (r *router) isSalted(tk *tableKey, key []shardkey.Value) bool {
	if tk.salted == nil {
		return false
	}
	r.buf = keyString(r.buf[:0], key)
	return tk.salted[string(r.buf)]
}

// buckets returns the shards of a salted value's buckets (bucketsOf) in
// r.set: under most engines the home shard and the K-1 shards after it,
// so K <= N buckets sit on K distinct shards; under Cassandra each
// bucket's token's node.
func (r *router) buckets(tk *tableKey, key []shardkey.Value, home int) []int {
	r.set = append(r.set[:0], r.bucketsOf(tk, key, home)...)
	return r.set
}

// rowShards places one row: it returns the touch of its data. A salted hot
// row spreads over its buckets (tUniformOf); a replicated row is on every
// shard (reported as tUniform: its request share spreads evenly).
func (r *router) row(tk *tableKey, t *shardkey.Table, i int) (touch, error) {
	switch tk.kind {
	case kUnplaced:
		return touch{kind: tOne, one: 0}, nil
	case kReplicate:
		return touch{kind: tUniform}, nil
	}
	r.key = r.key[:0]
	for _, c := range tk.cols {
		r.key = append(r.key, t.Columns[c].Value(i))
	}
	if tk.mongoHashed > 0 {
		j := tk.mongoHashed - 1
		if c := t.Columns[tk.cols[j]]; c != r.mhCol {
			r.mhCol, r.mh = c, mongoHashes(c, t.Rows)
		}
		if r.mh != nil {
			r.key[j] = shardkey.IntValue(r.mh[i])
		} else {
			v, err := mongoHashedValue(r.key[j])
			if err != nil {
				return touch{}, err
			}
			r.key[j] = v
		}
	}
	h, err := r.home(tk, r.key)
	if err != nil {
		if nullUnplaced(err, r.key) {
			// A NULL key the engine cannot place: the row cannot be
			// stored as it is; its weight is spread, and counted.
			r.nullRows++
			return touch{kind: tUniform}, nil
		}
		return touch{}, err
	}
	if r.isSalted(tk, r.key) {
		if tk.saltBy >= 0 {
			return touch{kind: tOne, one: r.byShard(tk, r.key, h, t.Columns[tk.saltBy].Value(i))}, nil
		}
		return touch{kind: tUniformOf, set: r.buckets(tk, r.key, h)}, nil
	}
	return touch{kind: tOne, one: h}, nil
}

// maxCombos bounds the cross product of IN lists routed value by value;
// beyond it the statement is treated as scatter-gather.
const maxCombos = 4096

// stmt routes one statement (kind and conditions on table ti; sets, an
// UPDATE's SET columns, shardkey.Instance.Sets): by the table's key, then
// through its lookups (viaLookups).
func (r *router) stmt(ti int, kind shardkey.Kind, conds, sets []shardkey.Cond) (touch, error) {
	if hasVia(conds) {
		// Conditions of a route this one merges with (merge.go).
		c, _, err := r.merged(ti, kind, conds)
		if err != nil {
			return touch{}, err
		}
		conds = c
	}
	var mv uint8
	var mvOne int
	if kind == shardkey.Update && len(sets) > 0 {
		// First: it routes the new row with the same scratch.
		var err error
		if mv, mvOne, err = r.move(ti, conds, sets); err != nil {
			return touch{}, err
		}
	}
	tc, err := r.stmtKey(ti, kind, conds)
	if err != nil {
		return tc, err
	}
	if r.s.tables[ti].lookups != nil {
		tc = r.viaLookups(r.s.tables[ti], kind, conds, sets, tc)
	}
	tc.mv, tc.mvOne = mv, mvOne
	return tc, nil
}

// stmtTo routes one statement as stmt does, into *tc. A statement that
// binds every column of its table's hash key to one known value, with no
// lookups, merged route or moving update to consider, is routed by
// keyShard alone: a statement of the common shape costs no touch built
// and copied out through stmtKey and stmt (136 bytes, twice, read back
// wider than it was written: store-forwarding stalls).
func (r *router) stmtTo(tc *touch, ti int, kind shardkey.Kind, conds, sets []shardkey.Cond) error {
	tk := r.s.tables[ti]
	if plain(tk, kind, conds, sets) {
		if sh, ok := r.keyShard(tk, conds); ok {
			*tc = touch{kind: tOne, one: sh}
			return nil
		}
		if k, ok := keyMissing(tk, kind, conds); ok {
			*tc = touch{kind: k, unbound: k == tUniform}
			return nil
		}
	}
	var err error
	*tc, err = r.stmt(ti, kind, conds, sets)
	return err
}

// plainShard returns the shard of a statement stmt routes to one shard
// (tOne) by its table's hash key alone: no lookups on the table, no
// merged route (Via), no UPDATE that may move its row; ok false when
// stmt must decide.
func (r *router) plainShard(ti int, kind shardkey.Kind, conds, sets []shardkey.Cond) (int, bool) {
	tk := r.s.tables[ti]
	if !plain(tk, kind, conds, sets) {
		return 0, false
	}
	return r.keyShard(tk, conds)
}

// plainRoutes enables the shortcuts of plain and keyShard (stmtTo,
// singleProb, stmtKey); tests turn it off to compare them with stmtKey's
// enumeration of the key's values, the general path.
var plainRoutes = true

// plain reports whether stmt routes a statement on tk by stmtKey alone:
// no lookups on the table, no merged route (Via), no UPDATE that may
// move its row.
func plain(tk *tableKey, kind shardkey.Kind, conds, sets []shardkey.Cond) bool {
	return plainRoutes && tk.lookups == nil && (kind != shardkey.Update || len(sets) == 0) && !hasVia(conds)
}

// keyMissing returns what stmtKey's enumeration returns for a statement
// on a hash or directory key that leaves a key column without a
// condition, every column before it bound by equality: tAll, or for an
// insert tUniform (unbound: the row gets the column's default). ok false
// for anything else (stmtKey decides).
func keyMissing(tk *tableKey, kind shardkey.Kind, conds []shardkey.Cond) (touchKind, bool) {
	if tk.kind != kHash && tk.kind != kDirectory {
		return 0, false
	}
	for _, c := range tk.cols {
		cd := findCond(conds, c)
		if cd == nil {
			if kind == shardkey.Insert {
				return tUniform, true
			}
			return tAll, true
		}
		if cd.Op != shardkey.Eq {
			return 0, false
		}
	}
	return 0, false
}

// keyShard returns the shard of a statement on a table placed by hash
// (no isolated or salted values) that binds every key column to one
// known value by equality: what stmtKey's enumeration of the key's
// values finds for it (one combination, home), or the same through the
// fast ways to it (one Int64 column's point, the memo's table). ok false
// for anything else, and when home fails (a NULL the engine cannot
// place): stmtKey decides.
func (r *router) keyShard(tk *tableKey, conds []shardkey.Cond) (int, bool) {
	if !plainRoutes || tk.kind != kHash || tk.iso != nil || tk.salted != nil {
		return 0, false
	}
	if tk.fast != nil {
		// One Int64 column bound to one value: the allocation-free path
		// rows take (home, without building a key).
		if cd := findCond(conds, tk.cols[0]); cd != nil && cd.Op == shardkey.Eq && cd.Fresh == shardkey.NotFresh && cd.Val.Type == shardkey.Int64 {
			pt := tk.fast.PointInt64(cd.Val.Int)
			if tk.modN > 0 {
				return int(pt % tk.modN), true
			}
			return tk.layout.Shard(pt), true
		}
	}
	if cap(r.combo) < len(tk.cols) {
		r.combo = make([]shardkey.Value, len(tk.cols))
	}
	key := r.combo[:len(tk.cols)]
	if !eqKey(key, tk.cols, conds) {
		return 0, false
	}
	if tk.memo != nil && tk.memo.sh != nil {
		// A memoised key whose shard the memo holds (every value of
		// the rows): that shard, as home would find it, without it.
		if sh, ok := tk.memo.known(key); ok {
			return sh, true
		}
	}
	h, err := r.home(tk, key)
	if err != nil {
		return 0, false
	}
	return h, true
}

// stmtKey routes one statement by the table's key alone.
func (r *router) stmtKey(ti int, kind shardkey.Kind, conds []shardkey.Cond) (touch, error) {
	tk := r.s.tables[ti]
	switch tk.kind {
	case kUnplaced:
		return touch{kind: tOne, one: 0}, nil
	case kReplicate:
		if kind == shardkey.Read {
			return touch{kind: tUniform, local: true}, nil
		}
		return touch{kind: tAll}, nil
	case kRange:
		return r.rangeStmt(tk, kind, conds)
	}
	if sh, ok := r.keyShard(tk, conds); ok {
		return touch{kind: tOne, one: sh}, nil
	}
	if cap(r.vals) < len(tk.cols) {
		r.vals = make([][]shardkey.Value, len(tk.cols))
		r.one = make([]shardkey.Value, len(tk.cols))
		r.idx = make([]int, len(tk.cols))
		r.combo = make([]shardkey.Value, len(tk.cols))
	}
	// Hash and directory keys: every key column must be bound by Eq or IN.
	combos := 1
	fresh, unknown := false, false
	freshKey := r.fkey[:0]
	vals := r.vals[:len(tk.cols)]
	for j, c := range tk.cols {
		cd := findCond(conds, c)
		if cd == nil {
			if kind == shardkey.Insert {
				// An insert that leaves a key column out stores its
				// default: treat it as an unknown value.
				return touch{kind: tUniform, unbound: true}, nil
			}
			return touch{kind: tAll}, nil
		}
		switch cd.Op {
		case shardkey.Eq:
			if cd.Fresh != shardkey.NotFresh {
				fresh = true
				vals[j] = nil
				continue
			}
			r.one[j] = cd.Val
			vals[j] = r.one[j : j+1]
		case shardkey.In:
			if cd.Unknown != 0 {
				unknown = true
				vals[j] = cd.List
				continue
			}
			if len(cd.List) == 0 {
				return touch{kind: tSet, set: r.set[:0]}, nil // IN () matches nothing
			}
			vals[j] = cd.List
			combos *= len(cd.List)
			if combos > maxCombos && len(tk.cols) > 1 {
				// (One column: each value is routed, however long the
				// list; several: their cross product is bounded.)
				return touch{kind: tAll, keyed: true}, nil
			}
		default:
			// A range on a hash key scatters; an insert's range holds
			// the values of the rows an INSERT ... SELECT copies: each
			// row goes to its own value's shard, the values (and so
			// which shards, and how many) known only at run time.
			if kind == shardkey.Insert {
				return touch{kind: tUniformN, n: -1, set: r.set[:0]}, nil
			}
			return touch{kind: tAll}, nil
		}
	}
	if fresh {
		// The identity of the new value's shard: the fresh variables and
		// the concrete values beside them, in key order.
		freshKey = freshKey[:0]
		for j, c := range tk.cols {
			cd := findCond(conds, c)
			if cd.Fresh != shardkey.NotFresh {
				freshKey = append(strconv.AppendInt(append(freshKey, 'f'), int64(cd.FreshVar), 10), ';')
			} else if cd.Op == shardkey.Eq {
				freshKey = append(keyString(append(freshKey, 'v'), vals[j]), ';')
			}
		}
	}
	r.fkey = freshKey
	if unknown || fresh && combos > 1 && kind != shardkey.Insert {
		return r.unknownList(tk, conds)
	}
	if fresh {
		// (An insert's fresh value with an IN list, which SQL does not
		// write: one random shard.)
		return touch{kind: tUniform, varKey: string(freshKey)}, nil
	}
	// Enumerate the cross product.
	r.tmp = r.tmp[:0]
	idx := r.idx[:len(tk.cols)]
	for j := range idx {
		idx[j] = 0
	}
	key := r.combo[:len(tk.cols)]
	salted := false
	byFresh := ""
	for {
		for j := range tk.cols {
			key[j] = vals[j][idx[j]]
		}
		h, err := r.home(tk, key)
		if err != nil {
			if nullUnplaced(err, key) {
				// A NULL key value the engine cannot place (Citus,
				// Vitess, Redis have no shard for it). In an IN list it
				// matches nothing (x IN (NULL, 2) is x = 2): skip it. A
				// lone one: a read cannot be routed, an insert's row
				// lands wherever the system puts it.
				if combos > 1 {
					if !nextCombo(idx, vals) {
						break
					}
					continue
				}
				if kind == shardkey.Insert {
					return touch{kind: tUniform, unbound: true}, nil
				}
				return touch{kind: tAll}, nil
			}
			return touch{}, err
		}
		if r.isSalted(tk, key) {
			if by, ok := r.byVals(tk, conds); ok {
				// salt by=: the bound by values' buckets only.
				for _, v := range by {
					if sh := r.byShard(tk, key, h, v); !r.mark[sh] {
						r.mark[sh] = true
						r.tmp = append(r.tmp, sh)
					}
				}
			} else {
				salted = true
				if tk.saltBy >= 0 && kind == shardkey.Insert {
					byFresh = r.byFreshKey(tk, h, conds)
				}
				for _, sh := range r.bucketsOf(tk, key, h) {
					if !r.mark[sh] {
						r.mark[sh] = true
						r.tmp = append(r.tmp, sh)
					}
				}
			}
		} else if !r.mark[h] {
			r.mark[h] = true
			r.tmp = append(r.tmp, h)
		}
		if !nextCombo(idx, vals) {
			break
		}
	}
	r.set = append(r.set[:0], r.tmp...)
	for _, sh := range r.tmp {
		r.mark[sh] = false // marks are clear between calls
	}
	if len(r.set) == 1 && !salted {
		return touch{kind: tOne, one: r.set[0]}, nil
	}
	if salted && kind == shardkey.Insert && combos == 1 {
		// A new row of a salted value goes to one of its buckets (under
		// salt by=, a new by value's: the same bucket for every row of
		// the transaction that carries it).
		return touch{kind: tUniformOf, set: r.set, varKey: byFresh}, nil
	}
	sort.Ints(r.set)
	return touch{kind: tSet, set: r.set, salted: salted}, nil
}

// unknownList routes a statement whose key is bound to values some of
// which are known only at run time: an IN list of bind parameters without
// values (IN ($1, $2), IN (?, ?)), a list bind variable (IN ::list), or a
// new value beside an IN list. Vitess plans such a list IN, by the key's
// vindex, and sends it to the shards of its values once they are known
// (planInOp and the IN opcode: go/vt/vtgate/planbuilder/operators/
// sharded_routing.go, go/vt/vtgate/engine/routing.go); Citus plans a
// router query over parameters with Job.deferredPruning set
// (src/backend/distributed/planner/multi_router_planner.c,
// fast_path_router_planner.c) and prunes its shards at execution, from the
// parameters' values (executor/citus_custom_scan.c). A one-column
// key's known values route to their shards (set); every other value is
// one unknown (n of them, the number of key tuples: the product of the
// columns' list lengths), each on a shard drawn uniformly.
func (r *router) unknownList(tk *tableKey, conds []shardkey.Cond) (touch, error) {
	n := 1
	var known []shardkey.Value
	for _, c := range tk.cols {
		cd := findCond(conds, c)
		k := 1
		if cd.Op == shardkey.In {
			if cd.Unknown < 0 {
				return touch{kind: tUniformN, n: -1, set: r.set[:0]}, nil
			}
			k = len(cd.List) + int(cd.Unknown)
			if len(tk.cols) == 1 && cd.Unknown > 0 {
				known, k = cd.List, int(cd.Unknown)
			}
		}
		if n > maxCombos/max(k, 1) {
			return touch{kind: tUniformN, n: -1, set: r.set[:0]}, nil
		}
		n *= k
	}
	r.tmp = r.tmp[:0]
	for _, v := range known {
		r.one = append(r.one[:0], v)
		h, err := r.home(tk, r.one[:1])
		if err != nil {
			if nullUnplaced(err, r.one[:1]) {
				continue // x IN (NULL, $1): NULL matches no row
			}
			return touch{}, err
		}
		if r.isSalted(tk, r.one[:1]) {
			for _, sh := range r.bucketsOf(tk, r.one[:1], h) {
				if !r.mark[sh] {
					r.mark[sh] = true
					r.tmp = append(r.tmp, sh)
				}
			}
		} else if !r.mark[h] {
			r.mark[h] = true
			r.tmp = append(r.tmp, h)
		}
	}
	r.collect()
	return touch{kind: tUniformN, n: n, set: r.set}, nil
}

// collect sets r.set to the shards gathered in r.tmp (each once, marked
// in r.mark), sorted, and clears their marks.
func (r *router) collect() {
	r.set = append(r.set[:0], r.tmp...)
	for _, sh := range r.tmp {
		r.mark[sh] = false
	}
	sort.Ints(r.set)
}

// nullUnplaced reports whether err is the engine having no shard for a
// key because one of its values is NULL (Citus, Vitess, Redis).
func nullUnplaced(err error, key []shardkey.Value) bool {
	return errors.Is(err, partition.ErrNoDestination) && slices.ContainsFunc(key, shardkey.Value.IsNull)
}

// nextCombo advances idx to the next combination of one value from each
// list of vals, reporting false after the last.
func nextCombo(idx []int, vals [][]shardkey.Value) bool {
	for j := len(idx) - 1; j >= 0; j-- {
		idx[j]++
		if idx[j] < len(vals[j]) {
			return true
		}
		idx[j] = 0
	}
	return false
}

func findCond(conds []shardkey.Cond, col int) *shardkey.Cond {
	for i := range conds {
		if conds[i].Col == col {
			return &conds[i]
		}
	}
	return nil
}

// rangeStmt routes a statement under a range key: Eq/IN on a prefix of the
// key columns, then optionally a range or a fresh value on the next one.
func (r *router) rangeStmt(tk *tableKey, kind shardkey.Kind, conds []shardkey.Cond) (touch, error) {
	if tk.stmtInt {
		// One integer value, or a list of them: the shards rangeShard
		// finds (Compare orders integers and timestamps by their Int),
		// without building keys, and the touch the general path below
		// makes of them.
		if cd := findCond(conds, tk.cols[0]); cd != nil && cd.Op == shardkey.Eq && cd.Fresh == shardkey.NotFresh && cd.Val.Type.IsInt() {
			return touch{kind: tOne, one: intRangeShard(tk.stmtBounds, cd.Val.Int)}, nil
		} else if cd != nil && cd.Op == shardkey.In && cd.Unknown == 0 && len(cd.List) > 0 && allIntValues(cd.List) {
			r.tmp = r.tmp[:0]
			for _, v := range cd.List {
				if sh := intRangeShard(tk.stmtBounds, v.Int); !r.mark[sh] {
					r.mark[sh] = true
					r.tmp = append(r.tmp, sh)
				}
			}
			r.collect()
			switch {
			case kind == shardkey.Insert && len(r.set) > 1:
				return touch{kind: tUniformOf, set: r.set}, nil
			case len(r.set) == 1:
				return touch{kind: tOne, one: r.set[0]}, nil
			}
			return touch{kind: tSet, set: r.set}, nil
		}
	}
	n := len(tk.bounds) + 1
	var prefixes [][]shardkey.Value // Eq/IN prefix combinations
	prefixes = append(prefixes, nil)
	var next *shardkey.Cond
	var hashedFresh *shardkey.Cond // a fresh value of a MongoDB-hashed field
	listSpan := false
	for j, c := range tk.cols {
		cd := findCond(conds, c)
		if cd == nil {
			break
		}
		if cd.Op == shardkey.Eq && cd.Fresh == shardkey.NotFresh {
			v, err := tk.keyPart(j, cd.Val)
			if err != nil {
				return touch{}, err
			}
			for i := range prefixes {
				prefixes[i] = append(prefixes[i], v)
			}
			continue
		}
		if tk.mongoHashed == j+1 && cd.Op != shardkey.In {
			// A new value's hash falls anywhere in the prefix's span;
			// a range on a hashed field bounds nothing (mongos has
			// point intervals only on a hashed field).
			if cd.Op == shardkey.Eq {
				hashedFresh = cd
			}
			break
		}
		if cd.Op == shardkey.In && cd.Unknown != 0 {
			if len(prefixes[0]) == 0 {
				// Values known only at run time on the leading column:
				// each in a range drawn uniformly (the ranges hold equal
				// shares of the rows).
				n := len(cd.List) + int(cd.Unknown)
				if cd.Unknown < 0 {
					n = -1
				}
				return touch{kind: tUniformN, n: n, set: r.set[:0]}, nil
			}
			// On a later column: within the prefix's ranges, at most
			// all of them (the span, as a range of unknown ends asks).
			listSpan = true
			next = &shardkey.Cond{Col: cd.Col, Op: shardkey.Eq, Fresh: shardkey.FreshUnique}
			break
		}
		if cd.Op == shardkey.In {
			if len(prefixes)*len(cd.List) > maxCombos && len(prefixes) > 1 {
				break
			}
			var np [][]shardkey.Value
			for _, p := range prefixes {
				for _, v := range cd.List {
					v, err := tk.keyPart(j, v)
					if err != nil {
						return touch{}, err
					}
					np = append(np, append(append([]shardkey.Value(nil), p...), v))
				}
			}
			prefixes = np
			if len(cd.List) == 0 {
				return touch{kind: tSet, set: r.set[:0]}, nil
			}
			continue
		}
		if cd.Op == shardkey.Range && (cd.Bounds == nil || !cd.Bounds.HasLo && !cd.Bounds.HasHi && !cd.Bounds.LoNow && !cd.Bounds.HiNow) {
			// A range with no ends: the rows an INSERT ... SELECT copies
			// may hold any value, each going to its own value's shard
			// (which, and how many, known only at run time); a read so
			// bound is not bound at all.
			if kind == shardkey.Insert {
				return touch{kind: tUniformN, n: -1, set: r.set[:0]}, nil
			}
			break
		}
		next = cd
		break
	}
	if hashedFresh != nil && len(prefixes[0]) > 0 {
		// As a fresh unique value of the next column: one shard of the span.
		next = hashedFresh
		if next.Fresh == shardkey.FreshNewest {
			c := *next
			c.Fresh = shardkey.FreshUnique
			next = &c
		}
	}
	if len(prefixes[0]) == 0 && next == nil {
		if kind == shardkey.Insert {
			return touch{kind: tUniform, unbound: true}, nil
		}
		return touch{kind: tAll}, nil
	}
	r.tmp = r.tmp[:0]
	add := func(lo, hi int) {
		for sh := lo; sh <= hi && sh < r.s.N; sh++ { // isolated values' shards lie beyond n
			if !r.mark[sh] {
				r.mark[sh] = true
				r.tmp = append(r.tmp, sh)
			}
		}
	}
	uniformSpan, salted := false, false
	addBuckets := func(key []shardkey.Value, home int) { // a salted value's buckets
		for _, sh := range r.bucketsOf(tk, key, home) {
			add(sh, sh)
		}
	}
	for _, p := range prefixes {
		full := len(p) == len(tk.cols)
		switch {
		case full:
			sh, err := r.home(tk, p)
			if err != nil {
				return touch{}, err
			}
			if r.isSalted(tk, p) {
				salted = true
				addBuckets(p, sh)
			} else {
				add(sh, sh)
			}
		case next != nil && next.Op == shardkey.Eq && next.Fresh == shardkey.FreshNewest:
			sh := rangeShard(tk.bounds, p, +1)
			add(sh, sh)
		case next != nil && next.Op == shardkey.Eq && next.Fresh == shardkey.FreshUnique:
			add(rangeShard(tk.bounds, p, -1), rangeShard(tk.bounds, p, +1))
			uniformSpan = !listSpan
		case next != nil && next.Op == shardkey.Range && next.Bounds != nil:
			b := next.Bounds
			if b.LoNow || b.HiNow {
				// An end known at run time (now() - interval '5 years'):
				// placed against the sample's newest value of the column
				// (nowEnd); where it cannot be, the end is open, every
				// range of the span it could reach.
				c := *b
				if v, ok := tk.nowEnd(len(p), b.LoAgo, b.LoAgoOK); ok && b.LoNow {
					c.Lo, c.HasLo = v, true
				}
				if v, ok := tk.nowEnd(len(p), b.HiAgo, b.HiAgoOK); ok && b.HiNow {
					c.Hi, c.HasHi = v, true
				}
				b = &c
			}
			lo := 0
			if b.HasLo {
				tail := -1
				if !b.LoIncl {
					tail = +1
				}
				lo = rangeShard(tk.bounds, append(append([]shardkey.Value(nil), p...), b.Lo), tail)
			} else if len(p) > 0 {
				lo = rangeShard(tk.bounds, p, -1)
			}
			hi := n - 1
			if b.HasHi {
				k := append(append([]shardkey.Value(nil), p...), b.Hi)
				if b.HiIncl {
					hi = rangeShard(tk.bounds, k, +1)
				} else {
					hi = rangeShardBelow(tk.bounds, k)
				}
			} else if len(p) > 0 {
				hi = rangeShard(tk.bounds, p, +1)
			}
			add(lo, hi)
		default:
			if len(p) == 0 {
				if kind == shardkey.Insert {
					return touch{kind: tUniform, unbound: true}, nil
				}
				return touch{kind: tAll}, nil
			}
			add(rangeShard(tk.bounds, p, -1), rangeShard(tk.bounds, p, +1))
		}
		if !full && (next == nil || next.Fresh == shardkey.NotFresh) {
			// An isolated value in the span lives on its own shard.
			for _, ik := range tk.isoKeys {
				if inSpan(ik.key, p, next) {
					add(ik.shard, ik.shard)
				}
			}
			// So does a salted value, from all of its buckets.
			for _, sk := range tk.saltKeys {
				if inSpan(sk.key, p, next) {
					sh, err := r.home(tk, sk.key)
					if err != nil {
						return touch{}, err
					}
					addBuckets(sk.key, sh)
					salted = true
				}
			}
		}
	}
	r.set = append(r.set[:0], r.tmp...)
	for _, sh := range r.tmp {
		r.mark[sh] = false // marks are clear between calls
	}
	sort.Ints(r.set)
	if (uniformSpan || kind == shardkey.Insert) && len(r.set) > 1 {
		tc := touch{kind: tUniformOf, set: r.set}
		if hashedFresh != nil && len(prefixes) == 1 {
			// A new value of a hashed field hashes alike wherever the
			// transaction writes it: one random chunk of the span for
			// all of its statements with this prefix.
			r.fkey = keyString(append(r.fkey[:0], 'h'), prefixes[0])
			r.fkey = strconv.AppendInt(append(r.fkey, ";f"...), int64(hashedFresh.FreshVar), 10)
			tc.varKey = string(r.fkey)
		}
		return tc, nil
	}
	if len(r.set) == 1 && !salted {
		return touch{kind: tOne, one: r.set[0]}, nil
	}
	return touch{kind: tSet, set: r.set, salted: salted}, nil
}

// intRangeShard is rangeShard of a one-integer key under integer bounds:
// the number of bounds <= v.
func intRangeShard(b []int64, v int64) int {
	lo, hi := 0, len(b)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if b[m] <= v {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// allIntValues reports whether every value is an integer or a timestamp
// (Type.IsInt).
func allIntValues(vs []shardkey.Value) bool {
	for _, v := range vs {
		if !v.Type.IsInt() {
			return false
		}
	}
	return true
}

// inSpan reports whether key tuple k starts with prefix p and, when next
// is a range condition on the following column, has a value there within
// it.
func inSpan(k, p []shardkey.Value, next *shardkey.Cond) bool {
	if len(k) < len(p) || cmpTuple(k[:len(p)], p) != 0 {
		return false
	}
	if next == nil || next.Op != shardkey.Range || next.Bounds == nil || len(k) == len(p) {
		return true
	}
	v, b := k[len(p)], next.Bounds
	if b.HasLo {
		if c := shardkey.Compare(v, b.Lo); c < 0 || c == 0 && !b.LoIncl {
			return false
		}
	}
	if b.HasHi {
		if c := shardkey.Compare(v, b.Hi); c > 0 || c == 0 && !b.HiIncl {
			return false
		}
	}
	return true
}

// cmpBound compares boundary tuple b with key tuple k, where k may be
// shorter than b and is extended by -inf (tail < 0) or +inf (tail > 0).
func cmpBound(b, k []shardkey.Value, tail int) int {
	m := len(b)
	if len(k) < m {
		m = len(k)
	}
	for i := 0; i < m; i++ {
		if c := shardkey.Compare(b[i], k[i]); c != 0 {
			return c
		}
	}
	if len(k) < len(b) {
		if tail < 0 {
			return 1 // b > k extended by -inf
		}
		return -1
	}
	if len(k) > len(b) {
		return -1 // b is a prefix of k: b <= k; k's extra parts make it larger
	}
	if tail > 0 {
		return -1
	}
	if tail < 0 && len(k) == len(b) {
		return 0
	}
	return 0
}

// rangeShard returns the shard holding key k (extended by tail): the number
// of boundaries <= k.
func rangeShard(bounds [][]shardkey.Value, k []shardkey.Value, tail int) int {
	return sort.Search(len(bounds), func(i int) bool { return cmpBound(bounds[i], k, tail) > 0 })
}

// rangeShardBelow returns the shard holding the largest key strictly below
// k: the number of boundaries < k.
func rangeShardBelow(bounds [][]shardkey.Value, k []shardkey.Value) int {
	return sort.Search(len(bounds), func(i int) bool { return cmpBound(bounds[i], k, -1) >= 0 })
}

// addTouch accounts one operation instance of rate w on op into p
// (Partial.addTouch), and its node fan-out when the scheme counts fan-out
// in nodes (Scheme.nodeFanout).
func (r *router) addTouch(p *Partial, op int, t *touch, w float64) {
	p.addTouch(op, t, w)
	m := r.s.nodeFanout
	if m == nil {
		return
	}
	if len(r.nodeSeen) != m.Count {
		r.nodeSeen, r.nodeStamp = make([]uint32, m.Count), 0
	}
	r.nodeStamp++
	if r.nodeStamp == 0 { // wrapped: stale stamps could match
		clear(r.nodeSeen)
		r.nodeStamp = 1
	}
	p.nodeTouch(op, t, w, m, r.nodeSeen, r.nodeStamp)
}

// eqKey fills key with the values conds binds to cols, one each by
// equality to a value known before the statement runs (not a fresh one),
// and reports whether every column had one; key has len(cols).
func eqKey(key []shardkey.Value, cols []int, conds []shardkey.Cond) bool {
	for j, c := range cols {
		cd := findCond(conds, c)
		if cd == nil || cd.Op != shardkey.Eq || cd.Fresh != shardkey.NotFresh {
			return false
		}
		key[j] = cd.Val
	}
	return true
}
