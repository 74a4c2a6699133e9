package sqllog

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
)

// go-tpc v1.0.7's statements that list two tables and leave their columns
// unqualified (tpcc/new_order.go newOrderSelectCustomer, tpcc/stock_level.go
// stockLevelCount), with values as MariaDB's general log shows them
// (testdata/gotpc-general.log).
const (
	gotpcNewOrderCustomer = `SELECT c_discount, c_last, c_credit, w_tax FROM customer, warehouse WHERE w_id = 2 AND c_w_id = w_id AND c_d_id = 2 AND c_id = 407`
	gotpcStockLevelCount  = "SELECT /*+ TIDB_INLJ(order_line,stock) */ COUNT(DISTINCT (s_i_id)) stock_count FROM order_line, stock \n" +
		"WHERE ol_w_id = 2 AND ol_d_id = 6 AND ol_o_id < 3004 AND ol_o_id >= 3004 - 20 AND s_w_id = 2 AND s_i_id = ol_i_id AND s_quantity < 10"
)

// gotpcColumns are the columns of go-tpc's tables the statements use
// (tpcc/ddl.go).
var gotpcColumns = map[string][]string{
	"warehouse":  {"w_id", "w_name", "w_street_1", "w_street_2", "w_city", "w_state", "w_zip", "w_tax", "w_ytd"},
	"customer":   {"c_id", "c_d_id", "c_w_id", "c_first", "c_middle", "c_last", "c_street_1", "c_street_2", "c_city", "c_state", "c_zip", "c_phone", "c_since", "c_credit", "c_credit_lim", "c_discount", "c_balance", "c_ytd_payment", "c_payment_cnt", "c_delivery_cnt", "c_data"},
	"order_line": {"ol_o_id", "ol_d_id", "ol_w_id", "ol_number", "ol_i_id", "ol_supply_w_id", "ol_delivery_d", "ol_quantity", "ol_amount", "ol_dist_info"},
	"stock":      {"s_i_id", "s_w_id", "s_quantity", "s_dist_01", "s_dist_02", "s_dist_03", "s_dist_04", "s_dist_05", "s_dist_06", "s_dist_07", "s_dist_08", "s_dist_09", "s_dist_10", "s_ytd", "s_order_cnt", "s_remote_cnt", "s_data"},
}

// schema returns a workload with the given tables and columns (all int64),
// as --rows or --from give them before a log is read.
func schema(tables map[string][]string, order ...string) *shardkey.Workload {
	w := &shardkey.Workload{}
	for _, name := range order {
		t := &shardkey.Table{Name: name}
		for _, c := range tables[name] {
			t.AddColumn(c, shardkey.Int64)
		}
		w.Tables = append(w.Tables, t)
	}
	return w
}

// withCatalog attaches a catalog of the workload's tables, as --from does.
func withCatalog(w *shardkey.Workload) *shardkey.Workload {
	cat := &shardkey.Catalog{Source: "test", Engine: "mariadb 10.11"}
	for _, t := range w.Tables {
		ti := &shardkey.TableInfo{Name: t.Name}
		for _, c := range t.Columns {
			ti.Columns = append(ti.Columns, &shardkey.ColumnInfo{Name: c.Name, Type: c.Type})
		}
		cat.Tables = append(cat.Tables, ti)
	}
	w.Catalog = cat
	return w
}

// bound returns what a statement becomes: one line per table access, with
// the conditions on its columns.
func bound(t *testing.T, w *shardkey.Workload, sql string) string {
	t.Helper()
	st, err := ParseStatement(sql, MySQL)
	if err != nil {
		t.Fatal(err)
	}
	acc, err := st.Bind(w, nil)
	if err != nil {
		t.Fatalf("Bind(%.60q): %v", sql, err)
	}
	var lines []string
	for _, a := range acc {
		tab := w.Tables[a.Table]
		lines = append(lines, fmt.Sprintf("%s %s %s", a.Kind, tab.Name, condsText(tab, a.Conds)))
	}
	return strings.Join(lines, "\n")
}

// warnings returns w's warnings but the one on a short span at coarse
// timestamps (a few seconds of a whole-second log: the tests' logs are),
// which is about rates, not what these tests read.
func warnings(w *shardkey.Workload) string {
	var s []string
	for _, e := range w.Warnings {
		if strings.Contains(e.Error(), "at timestamps of 1 s resolution") {
			continue
		}
		s = append(s, e.Error())
	}
	return strings.Join(s, "\n")
}

// TestBind_GoTPCUnqualified checks that each unqualified column of go-tpc's
// two-table statements lands on the table that has it, and that a join
// equality between unqualified columns carries the bound value (c_w_id =
// w_id with w_id = 2 binds c_w_id = 2), whatever tells the tables'
// columns apart: the catalog, a row sample's columns, or nothing but
// the columns' names.
func TestBind_GoTPCUnqualified(t *testing.T) {
	const (
		newOrder = "read customer {c_d_id=2 c_id=407 c_w_id=2}\n" +
			"read warehouse {w_id=2}"
		stockLevel = "read order_line {ol_d_id=6 ol_o_id in [2984,3004) ol_w_id=2}\n" + // 3004 - 20 folded, as both engines fold constants
			"read stock {s_quantity in (-inf,10) s_w_id=2}"
	)
	knowledge := []struct {
		name string
		w    func() *shardkey.Workload
	}{
		{"Catalog", func() *shardkey.Workload {
			return withCatalog(schema(gotpcColumns, "warehouse", "customer", "order_line", "stock"))
		}},
		{"RowSample", func() *shardkey.Workload {
			return schema(gotpcColumns, "warehouse", "customer", "order_line", "stock")
		}},
		{"NamesOnly", func() *shardkey.Workload { return &shardkey.Workload{} }},
	}
	for _, k := range knowledge {
		t.Run(k.name, func(t *testing.T) {
			check := func(sql, want string) {
				t.Helper()
				w := k.w()
				if got := bound(t, w, sql); got != want {
					t.Errorf("%.50s...:\ngot:\n%s\nwant:\n%s", sql, got, want)
				}
				if wn := warnings(w); wn != "" {
					t.Errorf("%.50s...: warnings:\n%s", sql, wn)
				}
			}
			check(gotpcNewOrderCustomer, newOrder)
			check(gotpcStockLevelCount, stockLevel)
		})
	}
}

// TestBind_AttributionOrder checks each source of attribution and their
// order: what the workload knows beats naming; the catalog rules out its
// tables; a prefix of known columns beats initials; nothing known keeps
// the first table and warns.
func TestBind_AttributionOrder(t *testing.T) {
	check := func(name string, w *shardkey.Workload, sql, want, wantWarn string) {
		t.Helper()
		got := bound(t, w, sql)
		if got != want {
			t.Errorf("%s: got:\n%s\nwant:\n%s", name, got, want)
		}
		wn := warnings(w)
		if wantWarn == "" && wn != "" || !strings.Contains(wn, wantWarn) {
			t.Errorf("%s: warnings %q; want %q", name, wn, wantWarn)
		}
	}
	// Known columns beat the initials (w for warehouse).
	w := schema(map[string][]string{"customer": {"c_id", "w_id"}, "warehouse": {"wh_id"}}, "customer", "warehouse")
	check("known", w, "SELECT * FROM warehouse, customer WHERE w_id = 3 AND c_id = 4",
		"read warehouse {}\nread customer {c_id=4 w_id=3}", "")
	// A catalog table lists all its columns: a column it lacks is the
	// other table's, names or not.
	w = withCatalog(schema(map[string][]string{"accounts": {"aid", "abalance"}}, "accounts"))
	check("catalog", w, "SELECT * FROM accounts, branches WHERE bid = 2 AND aid = 5",
		"read accounts {aid=5}\nread branches {bid=2}", "")
	// Prefixes: both tables' initials are p, but only places is known to
	// have a pl_ column.
	w = schema(map[string][]string{"people": {"pe_name"}, "places": {"pl_name"}}, "people", "places")
	check("prefix", w, "SELECT * FROM people, places WHERE pl_id = 1 AND pe_place = pl_id",
		"read people {pe_place=1}\nread places {pl_id=1}", "")
	// Nothing says where aid and bid are: the first table, as before, and
	// a warning that names the statement.
	w = &shardkey.Workload{}
	check("unknown", w, "SELECT * FROM accounts, branches WHERE bid = 2 AND aid = 5",
		"read accounts {aid=5 bid=2}\nread branches {}",
		"no table of accounts, branches is known to have columns bid, aid: attributed to accounts, the first table")
	// Qualified columns need no attribution; a single table neither.
	w = &shardkey.Workload{}
	check("qualified", w, "SELECT * FROM accounts a JOIN branches b ON a.bid = b.bid WHERE b.bid = 2",
		"read accounts {bid=2}\nread branches {bid=2}", "")
	check("single", w, "SELECT * FROM accounts WHERE aid = 5", "read accounts {aid=5}", "")
}

// TestRead_LogTeachesColumns checks that statements earlier in a log say
// which table has a column: here no names or catalog could (aid, bid).
func TestRead_LogTeachesColumns(t *testing.T) {
	log := "Time\t\t    Id Command\tArgument\n" +
		"240101 10:00:00\t    5 Query\tSELECT abalance FROM accounts WHERE aid = 1\n" +
		"\t\t    5 Query\tUPDATE branches SET bbalance = 0 WHERE bid = 1\n" +
		"240101 10:00:01\t    5 Query\tSELECT abalance FROM accounts, branches WHERE bid = 2 AND aid = 5\n"
	w := readText(t, log, Options{})
	var names []string
	for _, op := range w.Ops {
		names = append(names, op.Name)
	}
	got := strings.Join(names, "; ")
	want := "read accounts where aid = ?; update branches where bid = ?; read branches where bid = ?"
	if got != want {
		t.Errorf("operations: %s; want %s", got, want)
	}
	if wn := warnings(w); wn != "" {
		t.Errorf("warnings: %s", wn)
	}
}

// TestRead_GoTPC reads a NewOrder and a StockLevel transaction from
// MariaDB's general log of a go-tpc run (Execute lines of prepared
// statements; the time stamps added) and checks that every statement of
// each stays on the home warehouse, 2.
func TestRead_GoTPC(t *testing.T) {
	w := readLog(t, filepath.Join("testdata", "gotpc-general.log"), Options{})
	if len(w.Txns) != 2 {
		t.Fatalf("%d transactions; want 2", len(w.Txns))
	}
	home := map[string]string{"warehouse": "w_id", "customer": "c_w_id", "district": "d_w_id", "orders": "o_w_id",
		"new_order": "no_w_id", "stock": "s_w_id", "order_line": "ol_w_id"}
	for _, tx := range w.Txns {
		for _, s := range tx.Stmts {
			tab := w.Tables[s.Table]
			col, ok := home[tab.Name]
			if !ok {
				continue // item: a reference table
			}
			found := false
			for _, c := range s.Conds {
				if tab.Columns[c.Col].Name != col {
					continue
				}
				switch {
				case c.Op == shardkey.Eq && c.Val.Int == 2:
					found = true
				case c.Op == shardkey.In:
					found = true
					for _, v := range c.List {
						found = found && v.Int == 2
					}
				}
			}
			if !found {
				t.Errorf("%s %s %s: want %s = 2", s.Kind, tab.Name, condsText(tab, s.Conds), col)
			}
		}
	}
	if wn := warnings(w); wn != "" {
		t.Errorf("warnings: %s", wn)
	}
}
