package sqllog

import (
	"testing"

	"github.com/shardkey/shardkey"
)

// TestJoinPeers: SELECT ... FROM "OrderItems" oi JOIN "Orders" o ON
// o.order_id = oi.order_id WHERE o."CustomerId" = 5 binds nothing on
// OrderItems itself (the join column's value is not in the statement),
// but its instance records the join: OrderItems.order_id =
// Orders.order_id, with Orders' CustomerId = 5 (and 7 for the second
// statement); the Orders instance records none (OrderItems binds
// nothing). A join whose joined table binds only the join column itself
// (WHERE o.order_id = 9) carries that value into Conds, as before, and
// records no peer.
func TestJoinPeers(t *testing.T) {
	log := `2026-11-30 10:00:00.000 UTC [100] app@shop LOG:  statement: SELECT oi.product_id FROM "OrderItems" oi JOIN "Orders" o ON o.order_id = oi.order_id WHERE o."CustomerId" = 5;
2026-11-30 10:00:01.000 UTC [100] app@shop LOG:  statement: SELECT oi.product_id FROM "OrderItems" oi JOIN "Orders" o ON o.order_id = oi.order_id WHERE o."CustomerId" = 7;
2026-11-30 10:00:02.000 UTC [100] app@shop LOG:  statement: SELECT oi.product_id FROM "OrderItems" oi JOIN "Orders" o ON o.order_id = oi.order_id WHERE o.order_id = 9;
`
	w := readText(t, log, Options{})
	items, orders := w.TableIndex("OrderItems"), w.TableIndex("Orders")
	if items < 0 || orders < 0 {
		t.Fatalf("tables %v", w.Tables)
	}
	it, ot := w.Tables[items], w.Tables[orders]
	var got []int64
	bound := 0
	for _, op := range w.Ops {
		for _, in := range op.Instances {
			if op.Table == orders && len(in.Peers) > 0 {
				t.Errorf("%s: peers %+v; OrderItems binds nothing", op.Name, in.Peers)
			}
			if op.Table != items {
				continue
			}
			if c, ok := eq(in.Conds, it.ColumnIndex("order_id")); ok {
				bound++
				if c.Val != shardkey.IntValue(9) || len(in.Peers) != 0 {
					t.Errorf("%s: order_id = %v, peers %+v; want 9 and none", op.Name, c.Val, in.Peers)
				}
				continue
			}
			if len(in.Peers) != 1 {
				t.Fatalf("%s: peers %+v; want one", op.Name, in.Peers)
			}
			p := in.Peers[0]
			if p.Table != orders || p.Col != it.ColumnIndex("order_id") || p.OtherCol != ot.ColumnIndex("order_id") {
				t.Errorf("peer %+v; want OrderItems.order_id = Orders.order_id", p)
			}
			c, ok := eq(p.Conds, ot.ColumnIndex("CustomerId"))
			if !ok {
				t.Fatalf("peer conditions %+v; want CustomerId = ...", p.Conds)
			}
			got = append(got, c.Val.Int)
		}
	}
	if len(got) != 2 || got[0]+got[1] != 12 || got[0]*got[1] != 35 || bound != 1 {
		t.Errorf("peer CustomerId values %v (want 5 and 7), %d instances binding order_id (want 1)", got, bound)
	}
}

func eq(conds []shardkey.Cond, col int) (shardkey.Cond, bool) {
	for _, c := range conds {
		if c.Col == col && c.Op == shardkey.Eq {
			return c, true
		}
	}
	return shardkey.Cond{}, false
}
