package sqllog

import (
	"fmt"
	"strings"
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

// TestJoinPartsKeptApart: 300 statements SELECT ... FROM orders o JOIN
// items i ON i.order_id = o.id WHERE o.customer = k AND i.sku = k + 1000,
// k = 1..300, through reservoirs of 8 (most instances offered are
// dropped, kept ones replace others). Each table binds a column other
// than the joined one, so each read has the other as a join peer; the
// orders read is the statement's one request with the items read as its
// part. Every kept orders instance (customer = k) has its own items peer
// and part (sku = k + 1000, the part with its orders peer customer = k),
// and every kept items instance (sku = s) rides, with its orders peer
// customer = s - 1000. A part or peer built in the reader's scratch and
// kept without a copy of its own would show a later statement's values.
func TestJoinPartsKeptApart(t *testing.T) {
	var b strings.Builder
	for k := 1; k <= 300; k++ {
		fmt.Fprintf(&b, "2026-11-30 10:%02d:%02d.000 UTC [100] app@shop LOG:  statement: SELECT o.total FROM orders o JOIN items i ON i.order_id = o.id WHERE o.customer = %d AND i.sku = %d;\n", k/60, k%60, k, k+1000)
	}
	w := readText(t, b.String(), Options{Sample: 8})
	orders, items := w.TableIndex("orders"), w.TableIndex("items")
	if orders < 0 || items < 0 {
		t.Fatalf("tables %v", w.Tables)
	}
	cust, sku := w.Tables[orders].ColumnIndex("customer"), w.Tables[items].ColumnIndex("sku")
	peerVal := func(ps []shardkey.Peer, table, col int) int64 {
		if len(ps) != 1 || ps[0].Table != table {
			t.Helper()
			t.Fatalf("peers %+v; want one, of table %d", ps, table)
		}
		c, ok := eq(ps[0].Conds, col)
		if !ok {
			t.Fatalf("peer conditions %+v; want column %d = ...", ps[0].Conds, col)
		}
		return c.Val.Int
	}
	leads, riders := 0, 0
	for _, op := range w.Ops {
		for _, in := range op.Instances {
			switch op.Table {
			case orders:
				c, ok := eq(in.Conds, cust)
				if !ok || in.Rider || len(in.Parts) != 1 || in.Parts[0].Table != items {
					t.Fatalf("%s: conds %+v, rider %v, parts %+v; want customer = k, one items part", op.Name, in.Conds, in.Rider, in.Parts)
				}
				k := c.Val.Int
				if got := peerVal(in.Peers, items, sku); got != k+1000 {
					t.Errorf("orders customer = %d with peer sku = %d; want %d", k, got, k+1000)
				}
				pc, ok := eq(in.Parts[0].Conds, sku)
				if !ok || pc.Val.Int != k+1000 {
					t.Errorf("orders customer = %d with part sku = %v; want %d", k, pc.Val, k+1000)
				}
				if got := peerVal(in.Parts[0].Peers, orders, cust); got != k {
					t.Errorf("orders customer = %d with its part's peer customer = %d; want %d", k, got, k)
				}
				leads++
			case items:
				c, ok := eq(in.Conds, sku)
				if !ok || !in.Rider || len(in.Parts) != 0 {
					t.Fatalf("%s: conds %+v, rider %v, parts %+v; want sku = k + 1000, a rider", op.Name, in.Conds, in.Rider, in.Parts)
				}
				if got := peerVal(in.Peers, orders, cust); got != c.Val.Int-1000 {
					t.Errorf("items sku = %d with peer customer = %d; want %d", c.Val.Int, got, c.Val.Int-1000)
				}
				riders++
			}
		}
	}
	if leads != 8 || riders != 8 {
		t.Errorf("%d orders and %d items instances kept; want 8 each (the reservoirs' size)", leads, riders)
	}
}
