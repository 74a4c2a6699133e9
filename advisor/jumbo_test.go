package advisor_test

import (
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/advisor"
	"github.com/shardkey/shardkey/partition"
)

// jumboOrders: orders of 41 users, user 1 with whale documents and users
// 2..41 one each, every document {user_id: int64, _id: ObjectId, body:
// a string of 1 MiB}, read by user_id (each user alike). One document
// in BSON (bsonspec.org): 4 (length) + user_id 1+7+1+8 = 17 + _id
// 1+3+1+12 = 17 + body 1+4+1 + 4+1,048,576+1 = 1,048,587 + 1 (end) =
// 1,048,626 bytes. 128 of them are 134,224,128 bytes, more than MongoDB's
// 128 MiB chunk (134,217,728); 127 are 133,175,502, less.
func jumboOrders(t *testing.T, whale int) *shardkey.Workload {
	t.Helper()
	body := strings.Repeat("x", 1<<20)
	tb := &shardkey.Table{Name: "orders", Columns: []*shardkey.Column{
		{Name: "user_id", Type: shardkey.Int64}, {Name: "_id", Type: shardkey.ObjectID}, {Name: "body", Type: shardkey.Text}}}
	oid := func(i int) string {
		b := make([]byte, 12)
		b[8], b[9], b[10], b[11] = byte(i>>24), byte(i>>16), byte(i>>8), byte(i)
		return string(b)
	}
	row := func(user int64) {
		tb.Columns[0].Ints = append(tb.Columns[0].Ints, user)
		tb.Columns[1].Strs = append(tb.Columns[1].Strs, oid(tb.Rows))
		tb.Columns[2].Strs = append(tb.Columns[2].Strs, body)
		tb.Rows++
	}
	for i := 0; i < whale; i++ {
		row(1)
	}
	var reads []shardkey.Instance
	for u := int64(1); u <= 41; u++ {
		if u > 1 {
			row(u)
		}
		reads = append(reads, shardkey.Instance{Weight: 1, Conds: []shardkey.Cond{{Col: 0, Op: shardkey.Eq, Val: shardkey.Value{Type: shardkey.Int64, Int: u}}}})
	}
	w := &shardkey.Workload{Name: "orders", Tables: []*shardkey.Table{tb}, Ops: []*shardkey.Operation{
		{Name: "orders by user", Table: 0, Kind: shardkey.Read, Rate: 100, Instances: reads}}}
	if err := w.Validate(); err != nil {
		t.Fatal(err)
	}
	return w
}

// TestMongoJumboChunk: under MongoDB a key of one field whose heaviest
// value outgrows a 128 MiB chunk is said to make a jumbo chunk (the
// balancer cannot split or move it), and advise proposes {user_id: 1,
// _id: "hashed"}, which splits the whale's documents by _id while reads by
// user_id still target its chunks. One document fewer (127) fits in a
// chunk: no jumbo chunk from the sizes, no compound candidate (no query
// binds user_id and _id together); but user 1 then holds 127 of the 167
// documents, 76%, over one shard's fair share on 4 shards (25%), so its
// one chunk is jumbo once orders holds more than 128 MiB / 76.0% =
// 168.3 MiB: that is said and warned of instead (jumboShare).
func TestMongoJumboChunk(t *testing.T) {
	eng, err := partition.Lookup("mongodb")
	if err != nil {
		t.Fatal(err)
	}
	const compound = `{user_id: 1, _id: "hashed"}`
	for _, c := range []struct {
		whale int
		jumbo bool
	}{{128, true}, {127, false}} {
		adv, err := advisor.Recommend(jumboOrders(t, c.whale), advisor.Options{Shards: 4, Engine: eng})
		if err != nil {
			t.Fatal(err)
		}
		var hashed, comp *advisor.Assessment
		for _, as := range adv.Candidates {
			switch as.Key {
			case `{user_id: "hashed"}`:
				hashed = as
			case compound:
				comp = as
			}
		}
		if hashed == nil {
			t.Fatalf("whale %d: no {user_id: \"hashed\"} candidate", c.whale)
		}
		said := ""
		for _, r := range hashed.Reasons {
			if strings.HasPrefix(r, "jumbo chunk") {
				said = r
			}
		}
		want := "jumbo chunk: user_id 1 holds 128 of orders's sampled documents, 134224128 bytes in BSON"
		if c.jumbo && (!strings.HasPrefix(said, want) || !strings.Contains(said, compound)) {
			t.Errorf("whale %d: reasons %q; want %q... proposing %s", c.whale, hashed.Reasons, want, compound)
		}
		if !c.jumbo && strings.HasPrefix(said, "jumbo chunk: user_id 1 holds") {
			t.Errorf("whale %d: %q; 127 documents fit in a chunk", c.whale, said)
		}
		share := "jumbo chunk: orders.user_id = 1 holds 76% of the rows of orders"
		if !c.jumbo && (!strings.HasPrefix(said, share) || !strings.Contains(said, "once orders holds more than 128 MiB / 76% = 168.3 MiB")) {
			t.Errorf("whale %d: %q; want %q..., jumbo past 168.3 MiB", c.whale, said, share)
		}
		if (comp != nil) != c.jumbo {
			t.Errorf("whale %d: %s proposed %v; want %v", c.whale, compound, comp != nil, c.jumbo)
		}
		warned := false
		for _, wn := range adv.Warnings {
			warned = warned || strings.Contains(wn, "jumbo chunk")
		}
		if adv.Recommended == `{user_id: "hashed"}` && !warned {
			t.Errorf("whale %d: recommended %s, warnings %q; want a jumbo warning", c.whale, adv.Recommended, adv.Warnings)
		}
	}
}

// TestMongoJumboScaledToTable: a row sample of a big table weighs each
// value's documents in the sample's proportion; the table's bytes are the
// sample's scaled by the table's rows over the sample's. jumboOrders(64):
// user 1 holds 64 of 104 sampled documents, 64 * 1,048,626 = 67,112,064
// bytes (under a 128 MiB chunk, 134,217,728). With the catalog's row
// estimate of 208 (2x the sample) the table holds ~134,224,128 bytes of
// user 1, more than a chunk: jumbo. With 206 rows, 67,112,064 * 206 / 104
// = 132,933,665 bytes: fits. Without an estimate: the sample's, fits.
// (User 1's 64 of 104 documents, 61.5%, are over one shard's fair share
// on 4 shards, a jumbo chunk to come that jumboShare names in a sentence
// of its own, "jumbo chunk: orders.user_id = 1 ...": not the size's.)
func TestMongoJumboScaledToTable(t *testing.T) {
	eng, err := partition.Lookup("mongodb")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		est   float64 // 0: no catalog
		jumbo bool
	}{{208, true}, {206, false}, {0, false}} {
		w := jumboOrders(t, 64)
		if w.Tables[0].Rows != 104 {
			t.Fatalf("sample rows %d; want 104", w.Tables[0].Rows)
		}
		if c.est > 0 {
			w.Catalog = &shardkey.Catalog{Tables: []*shardkey.TableInfo{{Name: "orders", RowEstimate: c.est, SampleRows: 104}}}
		}
		adv, err := advisor.Recommend(w, advisor.Options{Shards: 4, Engine: eng})
		if err != nil {
			t.Fatal(err)
		}
		said := ""
		for _, as := range adv.Candidates {
			if as.Key != `{user_id: "hashed"}` {
				continue
			}
			for _, r := range as.Reasons {
				if strings.HasPrefix(r, "jumbo chunk: user_id 1 holds") {
					said = r
				}
			}
		}
		if c.jumbo && !strings.Contains(said, "~134224128 bytes") {
			t.Errorf("estimate %.0f: %q; want a jumbo chunk of ~134224128 bytes in the table", c.est, said)
		}
		if !c.jumbo && said != "" {
			t.Errorf("estimate %.0f: %q; user 1's documents fit a chunk", c.est, said)
		}
	}
}

// TestMongoJumboLowerBound: with no row estimate the sizes are the
// sample's, and the warning says they are a lower bound.
func TestMongoJumboLowerBound(t *testing.T) {
	eng, err := partition.Lookup("mongodb")
	if err != nil {
		t.Fatal(err)
	}
	adv, err := advisor.Recommend(jumboOrders(t, 128), advisor.Options{Shards: 4, Engine: eng})
	if err != nil {
		t.Fatal(err)
	}
	for _, as := range adv.Candidates {
		for _, r := range as.Reasons {
			if strings.HasPrefix(r, "jumbo chunk:") && !strings.Contains(r, "lower bound") {
				t.Errorf("%s: %q; want the sample's size called a lower bound", as.Key, r)
			}
		}
	}
}
