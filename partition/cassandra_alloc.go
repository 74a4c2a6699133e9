package partition

import (
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
)

// This file ports Apache Cassandra's token allocation algorithm (CASSANDRA-7032
// and follow-ups, Cassandra 3.0+; the default of the cassandra.yaml shipped
// with 4.0+, which sets num_tokens: 16 and
// allocate_tokens_for_local_replication_factor: 3) for the case shardkey
// simulates: nodes joining one at a time, one datacenter, one rack.
//
// apache/cassandra src/java/org/apache/cassandra/dht/tokenallocator/:
//
//   - TokenAllocation.java createStrategy: with one rack and local RF >= 2 each
//     node is its own group ("unit" = "group") and the allocator is
//     ReplicationAwareTokenAllocator (TokenAllocatorFactory.java: RF 1 would use
//     NoReplicationTokenAllocator, which this does not port; RF 1 is refused).
//     Every join builds a fresh allocator from the current ring
//     (StrategyAdapter.createAllocator), so no state carries over between joins.
//   - ReplicationAwareTokenAllocator.java addUnit: while fewer than RF nodes
//     hold tokens, or num_tokens exceeds the ring's token count, the tokens come
//     from generateSplits; otherwise the greedy candidate selection below.
//   - TokenAllocatorBase.java generateSplits: repeatedly split the largest
//     range at a ratio in [1-1/sqrt(5), that+0.075) drawn from
//     java.util.Random seeded with the ring's token count (ported exactly:
//     javaRandom); on an empty ring the first token is
//     Murmur3Partitioner.getRandomToken (ThreadLocalRandom in Cassandra, here a
//     PCG generator seeded with the engine's seed, so layouts are
//     deterministic).
//   - Murmur3Partitioner.java midpoint, split and LongToken.size: token
//     arithmetic (murmurMidpoint, murmurSplit, murmurSize).
//
// Also in Cassandra but not simulated: several racks or datacenters, the
// cross-datacenter clash adjustment (adjustForCrossDatacenterClashes; one DC
// has no other DC to clash with), removing or replacing nodes.

// cassandraAllocMaxNodes is the largest ring of nodes with numTokens tokens
// the allocation is simulated for: each join walks every token of the ring,
// so a ring of n nodes costs about n*n*numTokens/2 steps, and 1,024 nodes of
// 16 tokens (2^24 for n*n*numTokens) already take seconds. 1,024 nodes of 16
// tokens, 256 of 256, 4,096 of 1.
func cassandraAllocMaxNodes(numTokens int) int {
	return int(math.Sqrt(float64(1<<24) / float64(numTokens)))
}

// cassandraAllocCache holds, per (num_tokens, RF, seed), the tokens of the
// nodes allocated so far: node i's tokens depend only on nodes 0..i-1, so a
// layout of n nodes is a prefix of any larger one.
var cassandraAllocCache sync.Map // cassandraAllocKey -> *cassandraAllocRing

type cassandraAllocKey struct{ numTokens, rf, seed int }

type cassandraAllocRing struct {
	mu    sync.Mutex
	nodes [][]int64 // tokens of each node, in allocation order
	ring  []allocEntry
}

// allocEntry is a token of the ring and the index of its node.
type allocEntry struct {
	token int64
	node  int
}

// cassandraAllocTokens returns the tokens of nodes 0..n-1 when they join one at
// a time with numTokens tokens each, allocated for local RF rf (>= 2).
func cassandraAllocTokens(numTokens, rf, seed, n int) [][]int64 {
	v, _ := cassandraAllocCache.LoadOrStore(cassandraAllocKey{numTokens, rf, seed}, &cassandraAllocRing{})
	r := v.(*cassandraAllocRing)
	r.mu.Lock()
	defer r.mu.Unlock()
	for len(r.nodes) < n {
		node := len(r.nodes)
		toks := allocateUnit(r.ring, node, numTokens, rf, cassandraFirstToken(seed))
		r.nodes = append(r.nodes, toks)
		for _, t := range toks {
			r.ring = append(r.ring, allocEntry{t, node})
		}
		slices.SortFunc(r.ring, func(a, b allocEntry) int {
			if a.token < b.token {
				return -1
			}
			if a.token > b.token {
				return 1
			}
			return 0
		})
	}
	return r.nodes[:n:n]
}

// allocUnit is UnitInfo (TokenAllocatorBase.java); with one rack the unit is
// its own GroupInfo, so the group's seen markers live here too.
type allocUnit struct {
	node       int
	ownership  float64 // replicated ownership, fraction of the ring
	tokenCount int

	// UnitAdjustmentTracker state (evaluateImprovement).
	used              bool
	adjustedOwnership float64

	// GroupVisitor seen markers: equal to the visitor's epoch when seen.
	replSeen, popSeen uint64
}

// allocToken is BaseTokenInfo with TokenInfo's and CandidateInfo's links:
// an existing token (split == nil) or a candidate (split = the existing
// token directly after it).
type allocToken struct {
	token                int64
	unit                 *allocUnit
	replicationStart     int64
	replicationThreshold int64
	replicatedOwnership  float64
	prev, next           *allocToken
	split                *allocToken // candidates only
}

// prevInRing is BaseTokenInfo.prevInRing: prev for tokens, split.prev for
// candidates.
func (t *allocToken) prevInRing() *allocToken {
	if t.split != nil {
		return t.split.prev
	}
	return t.prev
}

// insertAfter is CircularList.insertAfter.
func (t *allocToken) insertAfter(head, unit *allocToken) *allocToken {
	if head == nil {
		t.prev, t.next = t, t
		return t
	}
	t.prev = unit
	t.next = unit.next
	t.prev.next = t
	t.next.prev = t
	return head
}

// removeFrom is CircularList.removeFrom: t keeps its own links.
func (t *allocToken) removeFrom(head *allocToken) *allocToken {
	t.next.prev = t.prev
	t.prev.next = t.next
	if t == head {
		if t == t.next {
			return nil
		}
		return t.next
	}
	return head
}

// allocator is the state of one ReplicationAwareTokenAllocator.addUnit call.
type allocator struct {
	replicas int
	epoch    uint64
}

// groupVisitor is GroupVisitor: marks units seen in one walk.
type groupVisitor struct {
	a     *allocator
	epoch uint64
	repl  bool // ReplicationVisitor (prevSeen) vs PopulateVisitor (prevPopulate)
	seen  int
}

func (a *allocator) visitor(repl bool) groupVisitor {
	a.epoch++
	return groupVisitor{a: a, epoch: a.epoch, repl: repl}
}

func (v *groupVisitor) mark(u *allocUnit) *uint64 {
	if v.repl {
		return &u.replSeen
	}
	return &u.popSeen
}

// add reports whether u is seen for the first time in this walk.
func (v *groupVisitor) add(u *allocUnit) bool {
	m := v.mark(u)
	if *m == v.epoch {
		return false
	}
	*m = v.epoch
	v.seen++
	return true
}

func (v *groupVisitor) visitedAll() bool      { return v.seen >= v.a.replicas }
func (v *groupVisitor) has(u *allocUnit) bool { return *v.mark(u) == v.epoch }

// cassandraFirstToken is the first token of an empty ring: Cassandra's
// Murmur3Partitioner.getRandomToken (normalize(ThreadLocalRandom long)),
// here drawn from a PCG generator seeded with seed.
func cassandraFirstToken(seed int) int64 {
	r := rand.New(rand.NewPCG(uint64(seed), 0x6361737361616c6c)) // "cassaall"
	t := int64(r.Uint64())
	if t == math.MinInt64 {
		t = math.MaxInt64
	}
	return t
}

// allocateUnit returns the tokens Cassandra picks for node joining a ring
// whose sorted tokens are ring (ReplicationAwareTokenAllocator.addUnit);
// first is the token getRandomToken gives if the ring is empty.
func allocateUnit(ring []allocEntry, node, numTokens, rf int, firstToken int64) []int64 {
	units := map[int]bool{}
	for _, e := range ring {
		units[e.node] = true
	}
	if len(units) < rf || numTokens > len(ring) {
		return generateSplits(ring, numTokens, firstToken)
	}
	a := &allocator{replicas: rf}
	opt := float64(rf) / float64(len(ring)+numTokens) // optimalTokenOwnership

	// createUnitInfos
	infos := map[int]*allocUnit{}
	for _, e := range ring {
		u := infos[e.node]
		if u == nil {
			u = &allocUnit{node: e.node}
			infos[e.node] = u
		}
		u.tokenCount++
	}
	newUnit := &allocUnit{node: node, ownership: float64(numTokens) * opt}

	// createTokenInfos
	var first, prev *allocToken
	for _, e := range ring {
		ti := &allocToken{token: e.token, unit: infos[e.node]}
		first = ti.insertAfter(first, prev)
		prev = ti
	}
	for curr := first; ; {
		a.populateAndAdjust(curr, newUnit)
		curr = curr.next
		if curr == first {
			break
		}
	}
	newUnit.tokenCount = numTokens

	// createCandidates: midpoints of all ranges, in ring order.
	var candidates, cprev *allocToken
	for curr := first; ; {
		c := &allocToken{token: murmurMidpoint(curr.prev.token, curr.token), split: curr, unit: newUnit}
		candidates = c.insertAfter(candidates, cprev)
		c.replicatedOwnership = opt
		a.populate(c, c.unit)
		cprev = c
		curr = curr.next
		if curr == first {
			break
		}
	}
	cprev.next = candidates

	var q javaPQ
	for c := candidates; ; {
		q.add(weighted{a.evaluateImprovement(c, opt, 1.0/float64(numTokens)), c})
		c = c.next
		if c == candidates {
			break
		}
	}

	var out []int64
	best := q.poll().value
	for vn := 1; ; vn++ {
		candidates = best.removeFrom(candidates)
		a.confirm(best)
		out = append(out, best.token)
		if vn == numTokens {
			break
		}
		for {
			best = q.poll().value
			impr := a.evaluateImprovement(best, opt, (float64(vn)+1.0)/float64(numTokens))
			next, ok := q.peek()
			if !ok || impr >= next.weight {
				break
			}
			q.add(weighted{impr, best})
		}
	}
	return out
}

// populate is populateTokenInfo: sets the token's replicationStart (end of the
// token of the RF'th distinct group before it) and replicationThreshold.
func (a *allocator) populate(t *allocToken, newUnitGroup *allocUnit) int64 {
	tokenGroup := t.unit
	v := a.visitor(false)
	var replicationStart int64
	replicationThreshold := t.token
	var currGroup *allocUnit
	for curr := t.prevInRing(); ; curr = curr.prev {
		replicationStart = curr.token
		currGroup = curr.unit
		if !v.add(currGroup) {
			continue
		}
		if v.visitedAll() {
			break
		}
		replicationThreshold = replicationStart
		if currGroup == tokenGroup {
			break
		}
	}
	if newUnitGroup == tokenGroup {
		replicationThreshold = t.token
	} else if newUnitGroup != currGroup && v.has(newUnitGroup) {
		replicationThreshold = replicationStart
	}
	t.replicationThreshold = replicationThreshold
	t.replicationStart = replicationStart
	return replicationStart
}

// populateAndAdjust is populateTokenInfoAndAdjustUnit.
func (a *allocator) populateAndAdjust(t *allocToken, newUnitGroup *allocUnit) {
	start := a.populate(t, newUnitGroup)
	n := murmurSize(start, t.token)
	old := t.replicatedOwnership
	t.replicatedOwnership = n
	t.unit.ownership += n - old
}

// confirm is confirmCandidate: puts candidate c into the ring and updates the
// ownership of the tokens and candidates it affects.
func (a *allocator) confirm(c *allocToken) {
	newUnit := c.unit
	prev := c.prevInRing()
	nt := &allocToken{token: c.token, unit: newUnit, replicatedOwnership: c.replicatedOwnership}
	nt.insertAfter(prev, prev)
	a.populateAndAdjust(nt, newUnit)
	v := a.visitor(true)
	for curr := nt.next; !v.visitedAll(); curr = curr.next {
		c = c.next
		a.populate(c, c.unit)
		if !v.add(curr.unit) {
			continue
		}
		a.populateAndAdjust(curr, newUnit)
	}
}

// evaluateImprovement returns the decrease in ownership variance of tokens
// and units if candidate c were added (ReplicationAwareTokenAllocator
// evaluateImprovement, applyOwnershipAdjustment, UnitAdjustmentTracker).
func (a *allocator) evaluateImprovement(c *allocToken, opt, newUnitMult float64) float64 {
	tokenChange := 0.0
	var chain []*allocUnit // units in the order first affected; chain[0] is the new unit
	apply := func(curr *allocToken, u *allocUnit, start, end int64) {
		old := curr.replicatedOwnership
		n := murmurSize(start, end)
		tc := float64(u.tokenCount)
		if !u.used {
			u.adjustedOwnership = u.ownership + (n - old)
			u.used = true
			chain = append(chain, u)
		} else {
			u.adjustedOwnership += n - old
		}
		tokenChange += (sq(n-opt) - sq(old-opt)) / sq(tc)
	}
	apply(c, c.unit, c.replicationStart, c.token)
	v := a.visitor(true)
	for curr := c.split; !v.visitedAll(); curr = curr.next {
		if !v.add(curr.unit) {
			continue
		}
		start := furtherStartToken(curr.replicationThreshold, c.token, curr.token)
		apply(curr, curr.unit, start, curr.token)
	}
	// calculateUnitChange walks the chain from the last unit added to the new unit.
	unitChange := 0.0
	for i := len(chain) - 1; i >= 0; i-- {
		u := chain[i]
		tc := float64(u.tokenCount)
		diff := sq(u.adjustedOwnership/tc-opt) - sq(u.ownership/tc-opt)
		u.used = false
		if i > 0 {
			unitChange += diff
		} else {
			unitChange += diff * newUnitMult
		}
	}
	return -(tokenChange + unitChange)
}

// furtherStartToken: of t1 and t2, the one forming the bigger range up to
// towards; equality means "same as", not the whole ring.
func furtherStartToken(t1, t2, towards int64) int64 {
	if t1 == towards {
		return t2
	}
	if t2 == towards {
		return t1
	}
	if murmurSize(t1, towards) > murmurSize(t2, towards) {
		return t1
	}
	return t2
}

func sq(d float64) float64 { return d * d }

// Initial split ratios (TokenAllocatorBase.MIN/MAX_INITIAL_SPLITS_RATIO).
var (
	minInitialSplitsRatio = 1.0 - 1.0/math.Sqrt(5.0)
	maxInitialSplitsRatio = minInitialSplitsRatio + 0.075
)

// generateSplits is TokenAllocatorBase.generateSplits: numTokens tokens, each
// splitting the currently largest range (the first found, scanning from the
// wrap-around range) at a ratio drawn from java.util.Random(ring size).
func generateSplits(ring []allocEntry, numTokens int, first int64) []int64 {
	random := newJavaRandom(int64(len(ring)))
	growth := maxInitialSplitsRatio - minInitialSplitsRatio
	sorted := make([]int64, len(ring))
	for i, e := range ring {
		sorted[i] = e.token
	}
	var out []int64
	put := func(t int64) {
		out = append(out, t)
		i, found := slices.BinarySearch(sorted, t)
		if !found {
			sorted = slices.Insert(sorted, i, t)
		}
	}
	if len(sorted) == 0 {
		// A random start token: where the ring is "centred", nothing else.
		put(first)
	}
	for len(out) < numTokens {
		prev := sorted[len(sorted)-1]
		maxsz := 0.0
		var t1, t2 int64
		for _, curr := range sorted {
			if sz := murmurSize(prev, curr); sz > maxsz {
				maxsz, t1, t2 = sz, prev, curr
			}
			prev = curr
		}
		put(murmurSplit(t1, t2, minInitialSplitsRatio+growth*random.nextDouble()))
	}
	return out
}

// murmurSize is Murmur3Partitioner.LongToken.size: the fraction of the ring
// from a (exclusive) to b (inclusive); a == b is the whole ring.
func murmurSize(a, b int64) float64 {
	d := math.Ldexp(float64(b-a), -64)
	if d > 0 {
		return d
	}
	return d + 1
}

var (
	bigMinToken = big.NewInt(math.MinInt64)
	bigMaxToken = big.NewInt(math.MaxInt64)
	bigSpan     = new(big.Int).Sub(bigMaxToken, bigMinToken) // max - min = 2^64 - 1
)

// murmurMidpoint is Murmur3Partitioner.midpoint.
func murmurMidpoint(l, r int64) int64 {
	L, R := big.NewInt(l), big.NewInt(r)
	m := new(big.Int)
	if l < r {
		m.Add(L, R).Rsh(m, 1)
	} else {
		m.Add(bigSpan, L).Add(m, R).Rsh(m, 1)
		if m.Cmp(bigMaxToken) > 0 {
			m.Sub(m, bigMaxToken).Add(m, bigMinToken)
		}
	}
	return m.Int64()
}

// murmurSplit is Murmur3Partitioner.split: l + (r - l) * ratio in BigDecimal,
// truncated toward zero (BigDecimal.toBigInteger), wrapping past the maximum
// token. BigDecimal.valueOf(ratio) is the shortest decimal of the double
// (Double.toString), here strconv's shortest form.
func murmurSplit(l, r int64, ratio float64) int64 {
	q, _ := new(big.Rat).SetString(strconv.FormatFloat(ratio, 'g', -1, 64))
	L, R := big.NewInt(l), big.NewInt(r)
	width := new(big.Int)
	if l < r {
		width.Sub(R, L)
	} else {
		width.Add(bigSpan, R).Sub(width, L)
	}
	x := new(big.Rat).Mul(new(big.Rat).SetInt(width), q)
	x.Add(x, new(big.Rat).SetInt(L))
	t := new(big.Int).Quo(x.Num(), x.Denom()) // truncates toward zero
	if l >= r && t.Cmp(bigMaxToken) > 0 {
		t.Sub(t, bigMaxToken).Add(t, bigMinToken)
	}
	return t.Int64()
}

// javaRandom is java.util.Random (48-bit LCG), used by generateSplits.
type javaRandom struct{ seed int64 }

const (
	javaRandMult = 0x5DEECE66D
	javaRandMask = 1<<48 - 1
)

func newJavaRandom(seed int64) *javaRandom {
	return &javaRandom{(seed ^ javaRandMult) & javaRandMask}
}

func (r *javaRandom) next(bits uint) int32 {
	r.seed = (r.seed*javaRandMult + 0xB) & javaRandMask
	return int32(uint64(r.seed) >> (48 - bits))
}

// nextDouble is Random.nextDouble: 53 random bits / 2^53.
func (r *javaRandom) nextDouble() float64 {
	hi := int64(r.next(26))
	lo := int64(r.next(27))
	return float64(hi<<27+lo) * (1.0 / (1 << 53))
}

// weighted is TokenAllocatorBase.Weighted: higher weight first.
type weighted struct {
	weight float64
	value  *allocToken
}

// javaCompare is Weighted.compareTo: Double.compare(o.weight, w.weight).
func (w weighted) compareTo(o weighted) int { return javaDoubleCompare(o.weight, w.weight) }

// javaDoubleCompare is Double.compare (-0.0 < 0.0, NaN largest).
func javaDoubleCompare(a, b float64) int {
	if a < b {
		return -1
	}
	if a > b {
		return 1
	}
	ab, bb := javaDoubleBits(a), javaDoubleBits(b)
	switch {
	case ab == bb:
		return 0
	case ab < bb:
		return -1
	}
	return 1
}

func javaDoubleBits(f float64) int64 {
	if math.IsNaN(f) {
		return 0x7ff8000000000000
	}
	return int64(math.Float64bits(f))
}

// javaPQ is java.util.PriorityQueue's binary heap (siftUp/siftDown), so ties
// break as in Cassandra.
type javaPQ struct{ q []weighted }

func (p *javaPQ) add(x weighted) {
	k := len(p.q)
	p.q = append(p.q, x)
	for k > 0 {
		parent := (k - 1) >> 1
		e := p.q[parent]
		if x.compareTo(e) >= 0 {
			break
		}
		p.q[k] = e
		k = parent
	}
	p.q[k] = x
}

func (p *javaPQ) peek() (weighted, bool) {
	if len(p.q) == 0 {
		return weighted{}, false
	}
	return p.q[0], true
}

func (p *javaPQ) poll() weighted {
	res := p.q[0]
	n := len(p.q) - 1
	x := p.q[n]
	p.q = p.q[:n]
	if n > 0 {
		k, half := 0, n>>1
		for k < half {
			child := 2*k + 1
			c := p.q[child]
			if right := child + 1; right < n && c.compareTo(p.q[right]) > 0 {
				child = right
				c = p.q[child]
			}
			if x.compareTo(c) <= 0 {
				break
			}
			p.q[k] = c
			k = child
		}
		p.q[k] = x
	}
	return res
}
