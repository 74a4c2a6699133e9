package advisor

import (
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/partition"
)

// joinedShop is a shop whose order lines are read through their order:
// SELECT ... FROM OrderItems oi JOIN Orders o ON o.order_id =
// oi.order_id WHERE o.CustomerId = ? (OrderItems has no CustomerId),
// 1,000 requests/s, beside 500 reads of a customer's orders, 100 order
// inserts and 300 line inserts a second, on 8 shards. 400 orders of 40
// customers, 3 lines each.
func joinedShop() *shardkey.Workload {
	const orders, customers = 400, 40
	ord := &shardkey.Table{Name: "Orders", Rows: orders, Columns: []*shardkey.Column{
		{Name: "order_id", Type: shardkey.Int64}, {Name: "CustomerId", Type: shardkey.Int64}}}
	items := &shardkey.Table{Name: "OrderItems", Rows: 3 * orders, Columns: []*shardkey.Column{
		{Name: "order_id", Type: shardkey.Int64}, {Name: "line_no", Type: shardkey.Int64}}}
	for o := 1; o <= orders; o++ {
		ord.Columns[0].Ints = append(ord.Columns[0].Ints, int64(o))
		ord.Columns[1].Ints = append(ord.Columns[1].Ints, int64(1+o%customers))
		for l := 1; l <= 3; l++ {
			items.Columns[0].Ints = append(items.Columns[0].Ints, int64(o))
			items.Columns[1].Ints = append(items.Columns[1].Ints, int64(l))
		}
	}
	eq := func(col int, v int64) shardkey.Cond {
		return shardkey.Cond{Col: col, Op: shardkey.Eq, Val: shardkey.IntValue(v)}
	}
	w := &shardkey.Workload{Name: "joined shop", Tables: []*shardkey.Table{ord, items}}
	joined := &shardkey.Operation{Name: "items of a customer's orders", Table: 1, Kind: shardkey.Read, Rate: 1000}
	byCustomer := &shardkey.Operation{Name: "a customer's orders", Table: 0, Kind: shardkey.Read, Rate: 500}
	for c := 1; c <= customers; c++ {
		joined.Instances = append(joined.Instances, shardkey.Instance{Weight: 1,
			Peers: []shardkey.Peer{{Col: 0, Table: 0, OtherCol: 0, Conds: []shardkey.Cond{eq(1, int64(c))}}}})
		byCustomer.Instances = append(byCustomer.Instances, shardkey.Instance{Weight: 1, Conds: []shardkey.Cond{eq(1, int64(c))}})
	}
	insOrder := &shardkey.Operation{Name: "insert an order", Table: 0, Kind: shardkey.Insert, Rate: 100}
	insItem := &shardkey.Operation{Name: "insert a line", Table: 1, Kind: shardkey.Insert, Rate: 300}
	for o := 1; o <= orders; o += 7 {
		insOrder.Instances = append(insOrder.Instances, shardkey.Instance{Weight: 1, Conds: []shardkey.Cond{eq(0, int64(o)), eq(1, int64(1+o%customers))}})
		insItem.Instances = append(insItem.Instances, shardkey.Instance{Weight: 1, Conds: []shardkey.Cond{eq(0, int64(o)), eq(1, 1)}})
	}
	w.Ops = []*shardkey.Operation{joined, byCustomer, insOrder, insItem}
	return w
}

// TestCarryJoinedRead: with CustomerId carried into OrderItems, the
// read joined to Orders by order_id and filtered on Orders.CustomerId
// asks the customer's shard only: every operation of the shop is then
// single-shard (by hand: 1,900 requests/s, 1,900 units of work/s; before,
// the joined read asked all 8 shards, 1,000 x 8 + 900 = 8,900 units/s and
// 900/1,900 = 47% single-shard). The carry says the joins must name
// CustomerId on both sides, and the design recommended neither replicates
// OrderItems (written 300/s) nor keys it apart from its orders.
func TestCarryJoinedRead(t *testing.T) {
	w := joinedShop()
	adv, err := Recommend(w, Options{Shards: 8})
	if err != nil {
		t.Fatal(err)
	}
	best := adv.Candidates[0]
	if len(best.Carry) != 1 || best.Carry[0].Table != "OrderItems" || best.Carry[0].Column != "CustomerId" {
		t.Fatalf("recommended %s carrying %+v; want CustomerId carried into OrderItems", best.Display(), best.Carry)
	}
	if best.Criteria.SingleShard != 1 || best.Score.WorkPerS != 1900 {
		t.Errorf("%s: single-shard %.3f, work %.1f units/s; want 1 and 1,900", best.Display(), best.Criteria.SingleShard, best.Score.WorkPerS)
	}
	if j := best.Carry[0].Joined; len(j) != 1 || j[0].Operation != "items of a customer's orders" || j[0].Parent != "Orders" || j[0].Rate != 1000 {
		t.Errorf("joined reads %+v; want items of a customer's orders, 1,000/s through Orders", j)
	}
	text := ""
	for _, f := range best.Fixes {
		if f.Kind == "carry-key" {
			text = f.Text
		}
	}
	if !strings.Contains(text, `ON ... AND "OrderItems"."CustomerId" = "Orders"."CustomerId"`) {
		t.Errorf("carry fix does not say how to write the join: %q", text)
	}
	for _, as := range adv.Candidates {
		if strings.Contains(as.Key, "OrderItems:replicate") && as.Viable {
			t.Errorf("%s is viable: OrderItems is written 300/s", as.Key)
		}
	}
}

// TestCarryJoinedReadMongo: under MongoDB the same joined read is a
// $lookup, and the carry says to match the carried field in it.
func TestCarryJoinedReadMongo(t *testing.T) {
	eng, err := partition.Lookup("mongodb")
	if err != nil {
		t.Fatal(err)
	}
	adv, err := Recommend(joinedShop(), Options{Shards: 8, Engine: eng})
	if err != nil {
		t.Fatal(err)
	}
	best := adv.Candidates[0]
	if len(best.Carry) != 1 || best.Criteria.SingleShard != 1 {
		t.Fatalf("recommended %s, single-shard %.3f; want CustomerId carried into OrderItems, 1", best.Display(), best.Criteria.SingleShard)
	}
	for _, f := range best.Fixes {
		if f.Kind == "carry-key" && (!strings.Contains(f.Text, "$lookup into OrderItems to match CustomerId") || strings.Contains(f.Text, "Citus")) {
			t.Errorf("carry fix under mongodb: %q", f.Text)
		}
	}
}
