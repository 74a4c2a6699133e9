package partition

import (
	"fmt"
	"sort"

	"github.com/shardkey/shardkey"
)

// RedisSlots is the number of Redis Cluster hash slots.
const RedisSlots = 16384

// Redis is Redis Cluster's key placement (redis/redis src/cluster.h
// keyHashSlot, src/crc16.c):
//
//	slot = CRC16/XMODEM(hashed part) & 16383
//
// CRC16/XMODEM has polynomial 0x1021, init 0, no reflection, no final xor.
// The hashed part is the whole key unless it holds a hash tag: only the
// first '{' counts, and if a '}' follows it with at least one byte between,
// only those bytes are hashed ("{user1000}.following" hashes "user1000",
// "foo{}{bar}" hashes the whole key, "foo{{bar}}" hashes "{bar").
//
// Key bytes are what a client sends (see appendClientKey): Text and Bytes
// raw, integers in decimal, compound keys joined with ':'. NULL has no
// destination. Hash and Point are the slot, 0..16383.
//
// The layout is the slot ranges `redis-cli --cluster create` assigns to n
// masters; Grow adds masters as `redis-cli --cluster add-node` followed by
// `redis-cli --cluster rebalance --cluster-use-empty-masters` does (see
// RedisLayout and Grow).
type Redis struct{}

var (
	_ Engine       = Redis{}
	_ Int64Pointer = Redis{}
	_ Grower       = Redis{}
)

func (Redis) Name() string { return "redis" }

func (r Redis) Hash(key []shardkey.Value) (Hash, error) {
	p, err := r.Point(key)
	return UnsignedHash(p), err
}

func (r Redis) Point(key []shardkey.Value) (uint64, error) {
	if v, ok := singleInt64(key); ok {
		return r.PointInt64(v), nil
	}
	if s, ok := singleRaw(key); ok {
		return uint64(RedisKeySlot(s)), nil
	}
	var buf [64]byte
	b, err := appendClientKey(buf[:0], key, "redis")
	if err != nil {
		return 0, err
	}
	return uint64(RedisKeySlot(b)), nil
}

// PointInt64 is Point for one Int64 column (its decimal text), without
// allocation.
func (Redis) PointInt64(v int64) uint64 {
	var buf [20]byte
	return uint64(RedisKeySlot(formatInt64(&buf, v)))
}

// RedisKeySlot returns the hash slot of key, 0..16383, honouring hash tags
// as keyHashSlot does.
func RedisKeySlot[K ~string | ~[]byte](key K) uint16 {
	s := -1
	for i := 0; i < len(key); i++ {
		if key[i] == '{' {
			s = i
			break
		}
	}
	if s >= 0 {
		for e := s + 1; e < len(key); e++ {
			if key[e] == '}' {
				if e != s+1 {
					return crc16XModem(key[s+1:e]) & (RedisSlots - 1)
				}
				break
			}
		}
	}
	return crc16XModem(key) & (RedisSlots - 1)
}

// crc16Tables are the CRC16/XMODEM tables for slicing by 4: crc16Tables[0]
// is the byte table of src/crc16.c, crc16Tables[k] the same for a byte
// followed by k zero bytes.
var crc16Tables = func() (t [4][256]uint16) {
	for i := range t[0] {
		c := uint16(i) << 8
		for j := 0; j < 8; j++ {
			if c&0x8000 != 0 {
				c = c<<1 ^ 0x1021
			} else {
				c <<= 1
			}
		}
		t[0][i] = c
	}
	for k := 1; k < 4; k++ {
		for i := range t[k] {
			p := t[k-1][i]
			t[k][i] = p<<8 ^ t[0][p>>8]
		}
	}
	return t
}()

// crc16XModem is CRC-16/XMODEM; crc16XModem("123456789") = 0x31C3. It
// takes 4 bytes per step: the register is 16 bits wide, so the 4 table
// lookups of a step are independent (CRC is linear), which shortens the
// dependency chain of the byte-at-a-time loop of src/crc16.c.
func crc16XModem[K ~string | ~[]byte](b K) uint16 {
	var c uint16
	t := &crc16Tables
	i := 0
	for ; i+4 <= len(b); i += 4 {
		c = t[3][byte(c>>8)^b[i]] ^ t[2][byte(c)^b[i+1]] ^ t[1][b[i+2]] ^ t[0][b[i+3]]
	}
	for ; i < len(b); i++ {
		c = c<<8 ^ t[0][byte(c>>8)^b[i]]
	}
	return c
}

// Layout returns the slots of a fresh n-master cluster as
// clusterManagerCommandCreate in redis-cli.c assigns them: with the float32
// slots_per_node = 16384/n and a float32 cursor, master i gets slots
// first..last where last = lround(cursor + slots_per_node - 1), the last
// master taking everything up to 16383 (3 masters: 0-5460, 5461-10922,
// 10923-16383). redis-cli refuses fewer than 3 masters; the same formula is
// applied for 1 and 2. n may be at most 16384; masters left without a slot
// when n is close to that own nothing.
func (Redis) Layout(n int) (Layout, error) {
	if err := checkShards(n); err != nil {
		return nil, err
	}
	if n > RedisSlots {
		return nil, fmt.Errorf("redis: %d masters: at most %d (one per slot)", n, RedisSlots)
	}
	l := &RedisLayout{n: n, owner: make([]uint16, RedisSlots)}
	spn := float32(RedisSlots) / float32(n)
	var cursor float32
	first := 0
	for i := 0; i < n; i++ {
		last := int(lround(float64(cursor + spn - 1)))
		if last > RedisSlots || i == n-1 {
			last = RedisSlots - 1
		}
		if last < first {
			last = first
		}
		for j := first; j <= last && j < RedisSlots; j++ {
			l.owner[j] = uint16(i)
		}
		first = last + 1
		cursor += spn
	}
	return l, nil
}

// lround rounds half away from zero, as C's lround.
func lround(x float64) int64 {
	if x < 0 {
		return -int64(-x + 0.5)
	}
	return int64(x + 0.5)
}

// Grow returns l (a RedisLayout) with masters n..to-1 added, empty, then
// rebalanced as clusterManagerCommandRebalance in redis-cli.c does with
// --cluster-use-empty-masters (without it rebalance ignores empty masters)
// and the default 2% threshold, all weights 1:
//
//   - each master's expected slot count is (int)(16384f / masters), its
//     balance its slot count minus that; while the balances sum to more than
//     0, masters with balance <= 0 (in index order) take one more;
//   - masters are sorted by balance; the one owing most (last) gives
//     min(|dst balance|, |src balance|) slots to the one wanting most
//     (first), the lowest-numbered slots it owns, until balanced.
//
// Adding one master to n moves 16384/(n+1) slots, about 1/(n+1) of keys,
// each old master giving the bottom of its ranges. Approximations: redis-cli
// walks masters in CLUSTER NODES order and sorts with qsort, so when several
// masters tie on balance the real pairing may differ (the slot counts do
// not; which slots move can when more than one master is added at once);
// here ties keep master index order.
func (Redis) Grow(l Layout, to int) (Layout, error) {
	old, ok := l.(*RedisLayout)
	if !ok {
		return nil, fmt.Errorf("redis: cannot grow a %T layout", l)
	}
	if to < old.n {
		return nil, fmt.Errorf("redis: cannot grow %d masters to %d", old.n, to)
	}
	if to > RedisSlots {
		return nil, fmt.Errorf("redis: %d masters: at most %d (one per slot)", to, RedisSlots)
	}
	g := &RedisLayout{n: to, owner: append([]uint16(nil), old.owner...)}
	count := make([]int, to)
	for _, o := range g.owner {
		count[o]++
	}
	expected := int(float32(RedisSlots) / float32(to) * 1)
	balance := make([]int, to)
	total, over := 0, false
	for i := range balance {
		balance[i] = count[i] - expected
		total += balance[i]
		const threshold = 2 // CLUSTER_MANAGER_REBALANCE_THRESHOLD, percent
		if count[i] > 0 {
			errPerc := abs(100 - 100.0*float64(expected)/float64(count[i]))
			if errPerc > threshold {
				over = true
			}
		} else if expected > 1 {
			over = true
		}
	}
	if !over {
		return g, nil
	}
	for total > 0 {
		for i := range balance {
			if balance[i] <= 0 && total > 0 {
				balance[i]--
				total--
			}
		}
	}
	order := make([]int, to)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return balance[order[a]] < balance[order[b]] })
	dst, src := 0, to-1
	for dst < src {
		d, s := order[dst], order[src]
		num := min(abs(balance[d]), abs(balance[s]))
		moved := 0
		for slot := 0; slot < RedisSlots && moved < num; slot++ {
			if int(g.owner[slot]) == s {
				g.owner[slot] = uint16(d)
				moved++
			}
		}
		balance[d] += num
		balance[s] -= num
		if balance[d] == 0 {
			dst++
		}
		if balance[s] == 0 {
			src--
		}
	}
	return g, nil
}

func abs[T int | float64](x T) T {
	if x < 0 {
		return -x
	}
	return x
}

// RedisLayout is the slot -> master table of a Redis Cluster. It is
// immutable once built.
type RedisLayout struct {
	n     int
	owner []uint16 // owner[slot], len 16384
}

func (l *RedisLayout) Shards() int { return l.n }

// Shard returns the master owning slot p (points above 16383 wrap).
func (l *RedisLayout) Shard(p uint64) int { return int(l.owner[p&(RedisSlots-1)]) }

// SlotCount returns the number of slots master i owns.
func (l *RedisLayout) SlotCount(i int) int {
	c := 0
	for _, o := range l.owner {
		if int(o) == i {
			c++
		}
	}
	return c
}
