package advisor_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/advisor"
	"github.com/shardkey/shardkey/partition"
)

// jumboPages: pages {workspace_id, page_id, body} and members
// {workspace_id, user_id}. Workspace 1 has 128 pages (page_id 1..128) of
// a 1 MiB body each: 128 * 1,048,6xx bytes in BSON, more than MongoDB's
// 128 MiB chunk (see jumboOrders), so {workspace_id: "hashed"} makes a
// jumbo chunk and the compound key's suffix is page_id (pages has no
// _id; page_id has 128 values among workspace 1's documents, body one).
// extra lists the workspaces of one small page each (page_id 129, 130,
// ...). loads gives the rate of "load page" (an equality on workspace_id
// and page_id) on each page by page_id; checks the rate of "check
// member" (an equality on workspace_id and user_id) on each workspace's
// user 1. Every workspace has users 1 and 2 in members.
func jumboPages(t *testing.T, extra []int64, loads map[int64]float64, checks map[int64]float64) *shardkey.Workload {
	t.Helper()
	big, small := strings.Repeat("x", 1<<20), "x"
	pages := &shardkey.Table{Name: "pages", Columns: []*shardkey.Column{
		{Name: "workspace_id", Type: shardkey.Int64}, {Name: "page_id", Type: shardkey.Int64}, {Name: "body", Type: shardkey.Text}}}
	ws := map[int64]int64{} // page_id -> workspace_id
	page := func(w, p int64, body string) {
		pages.Columns[0].Ints = append(pages.Columns[0].Ints, w)
		pages.Columns[1].Ints = append(pages.Columns[1].Ints, p)
		pages.Columns[2].Strs = append(pages.Columns[2].Strs, body)
		pages.Rows++
		ws[p] = w
	}
	// Workspace 1 between the others in insert order, so that
	// workspace_id does not grow with it (not monotonic).
	for p := int64(1); p <= 64; p++ {
		page(1, p, big)
	}
	for i, w := range extra {
		page(w, 129+int64(i), small)
	}
	for p := int64(65); p <= 128; p++ {
		page(1, p, big)
	}
	members := &shardkey.Table{Name: "members", Columns: []*shardkey.Column{
		{Name: "workspace_id", Type: shardkey.Int64}, {Name: "user_id", Type: shardkey.Int64}}}
	h := len(extra) / 2
	for _, w := range append(append(slices.Clone(extra[:h]), 1), extra[h:]...) {
		for u := int64(1); u <= 2; u++ {
			members.Columns[0].Ints = append(members.Columns[0].Ints, w)
			members.Columns[1].Ints = append(members.Columns[1].Ints, u)
			members.Rows++
		}
	}
	i64 := func(v int64) shardkey.Value { return shardkey.Value{Type: shardkey.Int64, Int: v} }
	op := func(name string, table int, rates map[int64]float64, inst func(k int64) []shardkey.Cond) *shardkey.Operation {
		o := &shardkey.Operation{Name: name, Table: table, Kind: shardkey.Read}
		for k := int64(1); k <= 200; k++ { // in key order: deterministic
			if r := rates[k]; r > 0 {
				o.Rate += r
				o.Instances = append(o.Instances, shardkey.Instance{Weight: r, Conds: inst(k)})
			}
		}
		return o
	}
	w := &shardkey.Workload{Name: "pages", Tables: []*shardkey.Table{pages, members}}
	w.Ops = append(w.Ops, op("load page", 0, loads, func(p int64) []shardkey.Cond {
		return []shardkey.Cond{{Col: 0, Op: shardkey.Eq, Val: i64(ws[p])}, {Col: 1, Op: shardkey.Eq, Val: i64(p)}}
	}))
	if len(checks) > 0 {
		w.Ops = append(w.Ops, op("check member", 1, checks, func(wk int64) []shardkey.Cond {
			return []shardkey.Cond{{Col: 0, Op: shardkey.Eq, Val: i64(wk)}, {Col: 1, Op: shardkey.Eq, Val: i64(1)}}
		}))
	}
	if err := w.Validate(); err != nil {
		t.Fatal(err)
	}
	return w
}

func jumboHashed(t *testing.T, w *shardkey.Workload) *advisor.Assessment {
	t.Helper()
	eng, err := partition.Lookup("mongodb")
	if err != nil {
		t.Fatal(err)
	}
	adv, err := advisor.Recommend(w, advisor.Options{Shards: 2, Engine: eng, Keys: []string{`{workspace_id: "hashed"}`}})
	if err != nil {
		t.Fatal(err)
	}
	for _, as := range adv.Candidates {
		if as.Key == `{workspace_id: "hashed"}` {
			return as
		}
	}
	t.Fatalf("no {workspace_id: \"hashed\"} candidate among %d", len(adv.Candidates))
	return nil
}

// TestMongoJumboFixKeepsOtherKeys: the compound-key fix of a design
// that keys every collection by {workspace_id: "hashed"} changes only
// the collections that have the suffix: pages takes {workspace_id: 1,
// page_id: "hashed"}, members (no page_id) keeps {workspace_id:
// "hashed"} (the bare compound key would leave it unsharded on the
// primary shard). By hand, on 2 shards: 1/s of "load page" on each of
// workspace 1's 128 pages (128/s) and 64/s of "check member" on
// workspace 1; workspaces 2 and 3 have a small page each and no traffic.
// MongoDB's hash of NumberLong(1) is 5,902,408,780,260,971,510
// (src/mongo/db/hasher_test.cpp), at or above the one split point 0 of
// 2 initial chunks (calculateHashedSplitPoints): chunk 1. Before, all of
// workspace 1 is there: 128 + 64 = 192/s. After, pages splits at equal
// data, its 130 documents in (workspace_id, hash(page_id)) order 65 to a
// chunk: 65 of workspace 1's pages on shard 0 (65/s), its other 63
// (63/s) and workspaces 2 and 3 on shard 1, with members' 64/s on
// hash(1)'s shard 1: 63 + 64 = 127/s, the busiest, no more than before.
// (The bare compound key left members unsharded on shard 0: 65 + 64 =
// 129/s.)
func TestMongoJumboFixKeepsOtherKeys(t *testing.T) {
	loads := map[int64]float64{}
	for p := int64(1); p <= 128; p++ {
		loads[p] = 1
	}
	as := jumboHashed(t, jumboPages(t, []int64{2, 3}, loads, map[int64]float64{1: 64}))
	var fix *advisor.Fix
	for i := range as.Fixes {
		if as.Fixes[i].Kind == "compound-key" {
			fix = &as.Fixes[i]
		}
	}
	if fix == nil {
		t.Fatalf("no compound-key fix (viable %v); reasons %q", as.Viable, as.Reasons)
	}
	const want = `{workspace_id: 1, page_id: "hashed"}; members:{workspace_id: "hashed"}`
	if fix.Key != want {
		t.Errorf("fix key %s; want %s (members keeps its key)", fix.Key, want)
	}
	if math.Abs(fix.Before.MaxShardWork-192) > 1e-6 || math.Abs(fix.After.MaxShardWork-127) > 1e-6 {
		t.Errorf("busiest shard %.6g -> %.6g; want 192 -> 127", fix.Before.MaxShardWork, fix.After.MaxShardWork)
	}
}

// TestMongoJumboFixNotWorse: a compound key that loads the busiest shard
// more is not proposed as a fix; the reasons say what it would cost.
// Workspace 1's 128 big pages have no traffic; workspaces 2 and 3 have one
// small page each (page_id 129, 130), loaded 50/s each. On 2 shards,
// MongoDB's hashes (md5 of seed 0, canonical type 10 and the int64, little
// endian; hasher.cpp) of NumberLong(2) = 848,411,777,775,835,583 (chunk 1)
// and of NumberLong(3) = -1,529,429,926,180,645,992 (chunk 0): before,
// 50/s on each shard. Under {workspace_id: 1, page_id: "hashed"} the 130
// documents in (workspace_id, hash(page_id)) order split at equal data,
// 65 to a chunk: the first 65 of workspace 1 on shard 0, its other 63 and
// workspaces 2 and 3 on shard 1, which does 100/s: worse.
func TestMongoJumboFixNotWorse(t *testing.T) {
	as := jumboHashed(t, jumboPages(t, []int64{2, 3}, map[int64]float64{129: 50, 130: 50}, nil))
	for _, f := range as.Fixes {
		if f.Kind == "compound-key" {
			t.Errorf("compound-key fix proposed: %s (busiest %.6g -> %.6g)", f.Text, f.Before.MaxShardWork, f.After.MaxShardWork)
		}
	}
	said := ""
	for _, r := range as.Reasons {
		if strings.Contains(r, "not proposed as a fix") {
			said = r
		}
	}
	if !strings.Contains(said, "the busiest shard's work would go from 50.0/s to 100/s") {
		t.Errorf("viable %v, reasons %q; want the compound key's cost, 50/s to 100/s", as.Viable, as.Reasons)
	}
}

// withIDs gives every document of w's tables an _id (an ObjectId, row i
// of table k: bytes k and i), and makes "load page" find its page by
// workspace_id and _id instead of page_id.
func withIDs(t *testing.T, w *shardkey.Workload) *shardkey.Workload {
	t.Helper()
	row := map[int64]int{} // page_id -> row of pages
	for k, tb := range w.Tables {
		c := &shardkey.Column{Name: "_id", Type: shardkey.ObjectID}
		for i := 0; i < tb.Rows; i++ {
			b := make([]byte, 12)
			b[7], b[10], b[11] = byte(k), byte(i>>8), byte(i)
			c.Strs = append(c.Strs, string(b))
		}
		tb.Columns = append(tb.Columns, c)
	}
	pages := w.Tables[0]
	for i := 0; i < pages.Rows; i++ {
		row[pages.Columns[1].Ints[i]] = i
	}
	id := pages.ColumnIndex("_id")
	for i := range w.Ops[0].Instances {
		c := &w.Ops[0].Instances[i].Conds[1]
		c.Col, c.Val = id, shardkey.Value{Type: shardkey.ObjectID, Str: pages.Columns[id].Strs[row[c.Val.Int]]}
	}
	if err := w.Validate(); err != nil {
		t.Fatal(err)
	}
	return w
}

// TestMongoJumboFixIDSuffix: with _id in every collection the jumbo's
// suffix is _id (jumboSuffix), and each collection's _id is its own, so
// only pages takes {workspace_id: 1, _id: "hashed"}: members, which has
// an _id too, keeps {workspace_id: "hashed"}. The loads now name each
// page by workspace_id and _id, an equality on every field of the
// compound key: the figures are TestMongoJumboFixKeepsOtherKeys's, 192/s
// before; after, 65 and 63 of workspace 1's pages (the 130 documents in
// (workspace_id, hash(_id)) order, 65 to a chunk, workspace 1's first)
// and members' 64/s on hash(1)'s shard 1: 127/s.
func TestMongoJumboFixIDSuffix(t *testing.T) {
	loads := map[int64]float64{}
	for p := int64(1); p <= 128; p++ {
		loads[p] = 1
	}
	as := jumboHashed(t, withIDs(t, jumboPages(t, []int64{2, 3}, loads, map[int64]float64{1: 64})))
	var fix *advisor.Fix
	for i := range as.Fixes {
		if as.Fixes[i].Kind == "compound-key" {
			fix = &as.Fixes[i]
		}
	}
	if fix == nil {
		t.Fatalf("no compound-key fix (viable %v); reasons %q", as.Viable, as.Reasons)
	}
	const want = `{workspace_id: 1, _id: "hashed"}; members:{workspace_id: "hashed"}`
	if fix.Key != want {
		t.Errorf("fix key %s; want %s (members keeps its key)", fix.Key, want)
	}
	if math.Abs(fix.Before.MaxShardWork-192) > 1e-6 || math.Abs(fix.After.MaxShardWork-127) > 1e-6 {
		t.Errorf("busiest shard %.6g -> %.6g; want 192 -> 127", fix.Before.MaxShardWork, fix.After.MaxShardWork)
	}
}
