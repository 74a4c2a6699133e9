// Package loggen writes query logs of a TPC-C client for benchmarks and
// memory tests: the statements go-tpc (github.com/pingcap/go-tpc, v1.0.7)
// sends for its five transactions (new-order 45%, payment 43%,
// order-status 4%, delivery 4%, stock-level 4%), as in
// sqllog/testdata/gotpc-general.log, with fresh values drawn per the TPC-C
// specification (remote ones too, as go-tpc draws and writes them: 1% of
// new-order lines supplied by another warehouse, in ol_supply_w_id and
// o_all_local only, the stock rows the home warehouse's; 15% of payments
// for another warehouse's customer, TPC-C 2.4.1.5 and 2.5.1.2), sessions interleaved statement by statement, times that
// advance, and sessions that disconnect and are replaced by new ones (new
// process ids), so a log of any size holds as many distinct values and
// sessions as a real one of that size. Same options, same bytes.
package loggen

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"time"
)

// Options say what to write.
type Options struct {
	// Format: stderr, csvlog, jsonlog (PostgreSQL), mysql-general or
	// mysql-slow (MariaDB).
	Format string
	// Bytes is the size to reach (the log ends at the first transaction
	// boundary past it).
	Bytes int64
	// Seed fixes every value.
	Seed uint64
	// Sessions open at once (default 32); each ends after TxnsPerSession
	// transactions (default 2000) and a new one takes its place.
	Sessions, TxnsPerSession int
	// Warehouses (default 10).
	Warehouses int
}

type sess struct {
	id    int
	queue []string
	txns  int
	start time.Time
	line  int
}

// Write writes the log and returns its size in bytes.
func Write(out io.Writer, o Options) (int64, error) {
	if o.Sessions <= 0 {
		o.Sessions = 32
	}
	if o.TxnsPerSession <= 0 {
		o.TxnsPerSession = 2000
	}
	if o.Warehouses <= 0 {
		o.Warehouses = 10
	}
	switch o.Format {
	case "stderr", "csvlog", "jsonlog", "mysql-general", "mysql-slow":
	default:
		return 0, fmt.Errorf("loggen: format %q: want stderr, csvlog, jsonlog, mysql-general or mysql-slow", o.Format)
	}
	cw := &counter{w: bufio.NewWriterSize(out, 1<<20)}
	g := &gen{o: o, rng: rand.New(rand.NewPCG(o.Seed, 0x7c7c)), w: cw,
		now: time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC), nextID: 1000,
		oid: make([]int, o.Warehouses*10)}
	for i := range g.oid {
		g.oid[i] = 3001
	}
	g.header()
	ss := make([]*sess, o.Sessions)
	for i := range ss {
		ss[i] = g.newSession()
	}
	for cw.n < o.Bytes || g.open(ss) {
		i := g.rng.IntN(len(ss))
		s := ss[i]
		if len(s.queue) == 0 {
			if cw.n >= o.Bytes {
				continue // finishing: only open transactions go on
			}
			if s.txns >= o.TxnsPerSession {
				g.end(s)
				s = g.newSession()
				ss[i] = s
			}
			s.queue = g.txn(s.queue[:0])
			s.txns++
		}
		g.now = g.now.Add(time.Duration(50+g.rng.IntN(300)) * time.Microsecond)
		g.stmt(s, s.queue[0])
		s.queue = s.queue[1:]
		if cw.err != nil {
			return cw.n, cw.err
		}
	}
	if err := cw.w.Flush(); err != nil {
		return cw.n, err
	}
	return cw.n, cw.err
}

func (g *gen) open(ss []*sess) bool {
	for _, s := range ss {
		if len(s.queue) > 0 {
			return true
		}
	}
	return false
}

type counter struct {
	w   *bufio.Writer
	n   int64
	err error
}

func (c *counter) WriteString(s string) {
	if c.err != nil {
		return
	}
	n, err := c.w.WriteString(s)
	c.n += int64(n)
	c.err = err
}

type gen struct {
	o       Options
	rng     *rand.Rand
	w       *counter
	now     time.Time
	nextID  int
	lastSec int64
	oid     []int // next order id by warehouse and district
	sb      strings.Builder
}

func (g *gen) newSession() *sess {
	g.nextID++
	s := &sess{id: g.nextID, start: g.now}
	if g.o.Format == "mysql-general" {
		g.general(s.id, "Connect", "tpcc@127.0.0.1 on tpcc using TCP/IP")
	}
	return s
}

func (g *gen) end(s *sess) {
	switch g.o.Format {
	case "mysql-general":
		g.general(s.id, "Quit", "")
	case "stderr":
		g.w.WriteString(fmt.Sprintf("%s [%d] tpcc@tpcc LOG:  disconnection: session time: 0:01:00.000 user=tpcc database=tpcc host=127.0.0.1 port=5432\n", g.now.Format("2006-01-02 15:04:05.000 MST"), s.id))
	}
}

func (g *gen) header() {
	switch g.o.Format {
	case "mysql-general":
		g.w.WriteString("/usr/sbin/mariadbd, Version: 10.11.19-MariaDB-0+deb12u1 (Debian 12). started with:\nTcp port: 3306  Unix socket: /run/mysqld/mysqld.sock\nTime\t\t    Id Command\tArgument\n")
	case "mysql-slow":
		g.w.WriteString("/usr/sbin/mariadbd, Version: 10.11.19-MariaDB-0+deb12u1 (Debian 12). started with:\nTcp port: 3306  Unix socket: /run/mysqld/mysqld.sock\nTime\t\t    Id Command\tArgument\n")
	}
}

func (g *gen) general(id int, cmd, arg string) {
	sec := g.now.Unix()
	if sec != g.lastSec {
		g.lastSec = sec
		g.w.WriteString(fmt.Sprintf("%s\t%6d %s\t%s\n", g.now.Format("060102 15:04:05"), id, cmd, arg))
		return
	}
	g.w.WriteString(fmt.Sprintf("\t\t%6d %s\t%s\n", id, cmd, arg))
}

func csvQuote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

func jsonQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`)
	return `"` + r.Replace(s) + `"`
}

// stmt writes one statement of session s.
func (g *gen) stmt(s *sess, sql string) {
	s.line++
	ts := g.now.Format("2006-01-02 15:04:05.000 MST")
	sid := fmt.Sprintf("%x.%x", s.start.Unix(), s.id)
	switch g.o.Format {
	case "stderr":
		g.w.WriteString(ts + fmt.Sprintf(" [%d] tpcc@tpcc LOG:  statement: ", s.id) + sql + "\n")
	case "csvlog":
		g.w.WriteString(fmt.Sprintf("%s,\"tpcc\",\"tpcc\",%d,\"127.0.0.1:%d\",%s,%d,\"idle\",%s,3/%d,0,LOG,00000,%s,,,,,,,,,\"go-tpc\",\"client backend\",,0\n",
			ts, s.id, 40000+s.id%20000, sid, s.line, s.start.Format("2006-01-02 15:04:05 MST"), s.line, csvQuote("statement: "+sql)))
	case "jsonlog":
		g.w.WriteString(fmt.Sprintf(`{"timestamp":"%s","user":"tpcc","dbname":"tpcc","pid":%d,"remote_host":"127.0.0.1","remote_port":%d,"session_id":"%s","line_num":%d,"ps":"idle","session_start":"%s","vxid":"3/%d","txid":0,"error_severity":"LOG","message":%s,"application_name":"go-tpc","backend_type":"client backend","query_id":0}`+"\n",
			ts, s.id, 40000+s.id%20000, sid, s.line, s.start.Format("2006-01-02 15:04:05 MST"), s.line, jsonQuote("statement: "+sql)))
	case "mysql-general":
		cmd := "Execute"
		if sql == "START TRANSACTION" || sql == "COMMIT" {
			cmd = "Query"
		}
		g.general(s.id, cmd, sql)
	case "mysql-slow":
		g.w.WriteString(fmt.Sprintf("# Time: %s\n# User@Host: root[root] @  [127.0.0.1]\n# Thread_id: %d  Schema: tpcc  QC_hit: No\n# Query_time: 0.000%03d  Lock_time: 0.000010  Rows_sent: 1  Rows_examined: 1\n# Rows_affected: 0  Bytes_sent: 11\nSET timestamp=%d;\n%s;\n",
			g.now.Format("060102 15:04:05"), s.id, g.rng.IntN(1000), g.now.Unix(), sql))
	}
}

// other returns a warehouse other than w, uniformly (go-tpc's
// otherWarehouse); there are at least two.
func (g *gen) other(w int) int {
	o := 1 + g.rng.IntN(g.o.Warehouses-1)
	if o >= w {
		o++
	}
	return o
}

// nurand is TPC-C's NURand(A, x, y) with C = 0 for this generator.
func (g *gen) nurand(a, x, y int) int {
	return ((g.rng.IntN(a+1) | (x + g.rng.IntN(y-x+1))) % (y - x + 1)) + x
}

var syllables = []string{"BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING"}

func (g *gen) lastName() string {
	n := g.nurand(255, 0, 999)
	return syllables[n/100] + syllables[n/10%10] + syllables[n%10]
}

func (g *gen) letters(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('A' + g.rng.IntN(26))
	}
	return string(b)
}

// txn returns the statements of one transaction, go-tpc's mix.
func (g *gen) txn(q []string) []string {
	w := 1 + g.rng.IntN(g.o.Warehouses)
	d := 1 + g.rng.IntN(10)
	ts := g.now.Format("2006-01-02 15:04:05")
	q = append(q, "START TRANSACTION")
	switch x := g.rng.IntN(100); {
	case x < 45: // new-order
		c := g.nurand(1023, 1, 3000)
		n := 5 + g.rng.IntN(11)
		o := g.oid[(w-1)*10+d-1]
		g.oid[(w-1)*10+d-1]++
		items := make([]int, n)
		qty := make([]int, n)
		supply := make([]int, n)
		allLocal := 1
		for i := range items {
			items[i] = g.nurand(8191, 1, 100000)
			qty[i] = 1 + g.rng.IntN(10)
			// TPC-C 2.4.1.5: 1% of the lines are supplied by another
			// warehouse (go-tpc: randInt(1, 100) == 1). go-tpc v1.0.7
			// writes it into ol_supply_w_id (and o_all_local) only: its
			// stock SELECT and UPDATE name the home warehouse
			// (scripts/e2e/check.py), so its new-order stays there.
			supply[i] = w
			if g.o.Warehouses > 1 && g.rng.IntN(100) == 0 {
				supply[i], allLocal = g.other(w), 0
			}
		}
		q = append(q,
			fmt.Sprintf("SELECT c_discount, c_last, c_credit, w_tax FROM customer, warehouse WHERE w_id = %d AND c_w_id = w_id AND c_d_id = %d AND c_id = %d", w, d, c),
			fmt.Sprintf("SELECT d_next_o_id, d_tax FROM district WHERE d_id = %d AND d_w_id = %d FOR UPDATE", d, w),
			fmt.Sprintf("UPDATE district SET d_next_o_id = %d + 1 WHERE d_id = %d AND d_w_id = %d", o, d, w),
			fmt.Sprintf("INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_ol_cnt, o_all_local) VALUES (%d, %d, %d, %d, '%s', %d, %d)", o, d, w, c, ts, n, allLocal),
			fmt.Sprintf("INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (%d, %d, %d)", o, d, w))
		var in, pairs, rows []string
		for i, it := range items {
			in = append(in, fmt.Sprint(it))
			pairs = append(pairs, fmt.Sprintf("(%d,%d)", w, it))
			rows = append(rows, fmt.Sprintf("(%d,%d,%d,%d,%d,%d,%d,%d.%04d,'%s')", o, d, w, i+1, it, supply[i], qty[i], g.rng.IntN(1000), g.rng.IntN(10000), g.letters(24)))
		}
		q = append(q,
			"SELECT i_price, i_name, i_data, i_id FROM item WHERE i_id IN ("+strings.Join(in, ",")+")",
			"SELECT s_i_id, s_quantity, s_data, s_dist_01, s_dist_02, s_dist_03, s_dist_04, s_dist_05, s_dist_06, s_dist_07, s_dist_08, s_dist_09, s_dist_10 FROM stock WHERE (s_w_id, s_i_id) IN ("+strings.Join(pairs, ",")+") FOR UPDATE")
		for i, it := range items {
			remote := 0
			if supply[i] != w {
				remote = 1
			}
			q = append(q, fmt.Sprintf("UPDATE stock SET s_quantity = %d, s_ytd = s_ytd + %d, s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + %d WHERE s_i_id = %d AND s_w_id = %d", 10+g.rng.IntN(91), qty[i], remote, it, w))
		}
		q = append(q, "INSERT into order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_dist_info) VALUES "+strings.Join(rows, ","))
	case x < 88: // payment
		amount := fmt.Sprintf("%d.%02d", 1+g.rng.IntN(5000), g.rng.IntN(100))
		q = append(q,
			fmt.Sprintf("UPDATE warehouse SET w_ytd = w_ytd + %s WHERE w_id = %d", amount, w),
			fmt.Sprintf("SELECT w_street_1, w_street_2, w_city, w_state, w_zip, w_name FROM warehouse WHERE w_id = %d", w),
			fmt.Sprintf("UPDATE district SET d_ytd = d_ytd + %s WHERE d_w_id = %d AND d_id = %d", amount, w, d),
			fmt.Sprintf("SELECT d_street_1, d_street_2, d_city, d_state, d_zip, d_name FROM district WHERE d_w_id = %d AND d_id = %d", w, d))
		c := g.nurand(1023, 1, 3000)
		// TPC-C 2.5.1.2: 15% of payments are for a customer of another
		// warehouse, in a random district of it (go-tpc: Intn(100) < 85
		// local).
		cw, cd := w, d
		if g.o.Warehouses > 1 && g.rng.IntN(100) >= 85 {
			cw, cd = g.other(w), 1+g.rng.IntN(10)
		}
		if g.rng.IntN(100) < 60 {
			last := g.lastName()
			q = append(q,
				fmt.Sprintf("SELECT count(c_id) namecnt FROM customer WHERE c_w_id = %d AND c_d_id = %d AND c_last = '%s'", cw, cd, last),
				fmt.Sprintf("SELECT c_id FROM customer WHERE c_w_id = %d AND c_d_id = %d AND c_last = '%s' ORDER BY c_first", cw, cd, last))
		}
		q = append(q,
			fmt.Sprintf("SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_credit, c_credit_lim, c_discount, c_balance, c_since FROM customer WHERE c_w_id = %d AND c_d_id = %d AND c_id = %d FOR UPDATE", cw, cd, c),
			fmt.Sprintf("UPDATE customer SET c_balance = c_balance - %s, c_ytd_payment = c_ytd_payment + %s, c_payment_cnt = c_payment_cnt + 1 WHERE c_w_id = %d AND c_d_id = %d AND c_id = %d", amount, amount, cw, cd, c),
			fmt.Sprintf("INSERT INTO history (h_c_d_id, h_c_w_id, h_c_id, h_d_id, h_w_id, h_date, h_amount, h_data) VALUES (%d, %d, %d, %d, %d, '%s', %s, '%s')", cd, cw, c, d, w, ts, amount, g.letters(12)))
	case x < 92: // order-status
		c := g.nurand(1023, 1, 3000)
		q = append(q,
			fmt.Sprintf("SELECT c_balance, c_first, c_middle, c_last FROM customer WHERE c_w_id = %d AND c_d_id = %d AND c_id = %d", w, d, c),
			fmt.Sprintf("SELECT o_id, o_carrier_id, o_entry_d FROM orders WHERE o_w_id = %d AND o_d_id = %d AND o_c_id = %d ORDER BY o_id DESC LIMIT 1", w, d, c),
			fmt.Sprintf("SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line WHERE ol_w_id = %d AND ol_d_id = %d AND ol_o_id = %d", w, d, max(1, g.oid[(w-1)*10+d-1]-1-g.rng.IntN(20))))
	case x < 96: // delivery: the ten districts of a warehouse
		carrier := 1 + g.rng.IntN(10)
		for dd := 1; dd <= 10; dd++ {
			o := max(1, g.oid[(w-1)*10+dd-1]-1-g.rng.IntN(5))
			c := 1 + g.rng.IntN(3000)
			q = append(q,
				fmt.Sprintf("SELECT no_o_id FROM new_order WHERE no_w_id = %d AND no_d_id = %d ORDER BY no_o_id ASC LIMIT 1 FOR UPDATE", w, dd),
				fmt.Sprintf("DELETE FROM new_order WHERE (no_w_id, no_d_id, no_o_id) IN ((%d,%d,%d))", w, dd, o),
				fmt.Sprintf("UPDATE orders SET o_carrier_id = %d WHERE (o_w_id, o_d_id, o_id) IN ((%d,%d,%d))", carrier, w, dd, o),
				fmt.Sprintf("UPDATE order_line SET ol_delivery_d = '%s' WHERE (ol_w_id, ol_d_id, ol_o_id) IN ((%d,%d,%d))", ts, w, dd, o),
				fmt.Sprintf("SELECT o_c_id, SUM(ol_amount) FROM orders, order_line WHERE o_w_id = ol_w_id AND o_d_id = ol_d_id AND o_id = ol_o_id AND o_w_id = %d AND o_d_id = %d AND o_id = %d GROUP BY o_c_id", w, dd, o),
				fmt.Sprintf("UPDATE customer SET c_balance = c_balance + %d.%02d, c_delivery_cnt = c_delivery_cnt + 1 WHERE (c_w_id, c_d_id, c_id) IN ((%d,%d,%d))", g.rng.IntN(5000), g.rng.IntN(100), w, dd, c))
		}
	default: // stock-level
		o := g.oid[(w-1)*10+d-1]
		q = append(q,
			fmt.Sprintf("SELECT d_next_o_id FROM district WHERE d_w_id = %d AND d_id = %d", w, d),
			fmt.Sprintf("SELECT /*+ TIDB_INLJ(order_line,stock) */ COUNT(DISTINCT (s_i_id)) stock_count FROM order_line, stock WHERE ol_w_id = %d AND ol_d_id = %d AND ol_o_id < %d AND ol_o_id >= %d - 20 AND s_w_id = %d AND s_i_id = ol_i_id AND s_quantity < %d", w, d, o, o, w, 10+g.rng.IntN(11)))
	}
	return append(q, "COMMIT")
}
