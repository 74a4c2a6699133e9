package sim

import (
	"strconv"

	"github.com/shardkey/shardkey"
)

// A salt with by= (salt(EXPR, K, top=N, by=col)) places each row of a hot
// key value in the bucket the hash of its by column picks: a hash suffix
// on the hot key, the second level of a whale tenant's compound key
// (tenant_id, page_id). It is the layout a Vitess multicol vindex
// (go/vt/vtgate/vindexes/multicol.go) gives the tenant: the tenant's value
// picks the first of its K shards (its home, as for salt) and the second
// column picks one of them, so a statement that binds both goes to one
// shard and one that binds the tenant alone asks the K.

// byBucket returns the bucket, 0..k-1, of a hot row whose by column holds
// v: splitmix64's finaliser of the integer for integer types, of FNV-1a
// over the canonical text otherwise. It allocates nothing; buf is scratch
// and is returned for reuse.
func byBucket(v shardkey.Value, k int, buf []byte) (int, []byte) {
	var x uint64
	v = v.Canonical()
	if v.Type.IsInt() {
		x = uint64(v.Int)
	} else {
		buf = append(buf[:0], byte('0'+v.Type))
		buf = v.AppendText(buf)
		x = 14695981039346656037
		for _, c := range buf {
			x ^= uint64(c)
			x *= 1099511628211
		}
	}
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	x ^= x >> 31
	return int(x % uint64(k)), buf
}

// byShard returns the shard of a row of hot key value key, homed at
// shard home, whose by column holds v: the shard of its bucket b
// (bucketsOf: home+b mod N, or under Cassandra the node of (key, b)'s
// token).
func (r *router) byShard(tk *tableKey, key []shardkey.Value, home int, v shardkey.Value) int {
	sh := r.bucketsOf(tk, key, home)
	var b int
	b, r.bbuf = byBucket(v, len(sh), r.bbuf)
	return sh[b]
}

// byShardInt is byShard for a key of one integer column holding k.
func (r *router) byShardInt(tk *tableKey, k int64, typ shardkey.Type, home int, v shardkey.Value) int {
	sh, ok := tk.bshardInt[k]
	if !ok {
		sh = r.bucketsOf(tk, []shardkey.Value{{Type: typ, Int: k}}, home)
	}
	var b int
	b, r.bbuf = byBucket(v, len(sh), r.bbuf)
	return sh[b]
}

// byVals returns the values a statement binds to tk's by column, known
// when it is planned (= v, IN (v, ...)); ok is false when it binds none
// (a read of the whole hot value asks all its buckets) or only values
// known at run time.
func (r *router) byVals(tk *tableKey, conds []shardkey.Cond) (vals []shardkey.Value, ok bool) {
	if tk.saltBy < 0 {
		return nil, false
	}
	cd := findCond(conds, tk.saltBy)
	if cd == nil {
		return nil, false
	}
	switch cd.Op {
	case shardkey.Eq:
		if cd.Fresh != shardkey.NotFresh {
			return nil, false
		}
		r.bone[0] = cd.Val
		return r.bone[:], true
	case shardkey.In:
		if cd.Unknown != 0 {
			return nil, false
		}
		return cd.List, true
	}
	return nil, false
}

// byFreshKey returns the random variable of an insert's new by value
// (touch.varKey): inserts of one transaction that carry the same new
// value (a page and its first blocks) land in the same bucket. "" when
// the by value is not a transaction's fresh variable.
func (r *router) byFreshKey(tk *tableKey, home int, conds []shardkey.Cond) string {
	cd := findCond(conds, tk.saltBy)
	if cd == nil || cd.Op != shardkey.Eq || cd.Fresh == shardkey.NotFresh || cd.FreshVar == 0 {
		return ""
	}
	b := append(r.bbuf[:0], "by"...)
	b = strconv.AppendInt(b, int64(cd.FreshVar), 10)
	b = append(b, ';')
	b = strconv.AppendInt(b, int64(home), 10)
	r.bbuf = b
	return string(b)
}
