package sqllog

import (
	"github.com/shardkey/shardkey"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Session 101 commits a transaction in which ROLLBACK TO SAVEPOINT undoes
// one statement (the transaction goes on); session 202 rolls its
// transaction back; session 303 commits one autocommit insert.
const rollbackPG = `2024-03-01 10:00:00.000 UTC [101] app@db LOG:  statement: BEGIN;
2024-03-01 10:00:00.100 UTC [101] app@db LOG:  statement: UPDATE accounts SET bal = 1 WHERE id = 1;
2024-03-01 10:00:00.200 UTC [101] app@db LOG:  statement: SAVEPOINT s1;
2024-03-01 10:00:00.300 UTC [101] app@db LOG:  statement: UPDATE accounts SET bal = 1 WHERE id = 2;
2024-03-01 10:00:00.400 UTC [101] app@db LOG:  statement: ROLLBACK TO SAVEPOINT s1;
2024-03-01 10:00:00.500 UTC [101] app@db LOG:  statement: UPDATE accounts SET bal = 1 WHERE id = 3;
2024-03-01 10:00:00.600 UTC [101] app@db LOG:  statement: COMMIT;
2024-03-01 10:00:00.650 UTC [202] app@db LOG:  statement: BEGIN;
2024-03-01 10:00:00.700 UTC [202] app@db LOG:  statement: UPDATE accounts SET bal = 1 WHERE id = 4;
2024-03-01 10:00:00.800 UTC [202] app@db LOG:  statement: UPDATE accounts SET bal = 1 WHERE id = 5;
2024-03-01 10:00:00.900 UTC [202] app@db LOG:  statement: ROLLBACK;
2024-03-01 10:00:01.000 UTC [303] app@db LOG:  statement: INSERT INTO accounts (id, bal) VALUES (6, 0);
`

// The same in a MySQL general log (thread ids as sessions), with
// MySQL's spelling ROLLBACK TO s1 and a ROLLBACK WORK.
const rollbackMySQL = "Time\t\t    Id Command\tArgument\n" +
	"240301 10:00:00\t    11 Query\tSTART TRANSACTION\n" +
	"\t\t    11 Query\tUPDATE accounts SET bal = 1 WHERE id = 1\n" +
	"\t\t    11 Query\tSAVEPOINT s1\n" +
	"\t\t    11 Query\tUPDATE accounts SET bal = 1 WHERE id = 2\n" +
	"\t\t    11 Query\tROLLBACK TO s1\n" +
	"\t\t    11 Query\tUPDATE accounts SET bal = 1 WHERE id = 3\n" +
	"\t\t    11 Query\tCOMMIT\n" +
	"\t\t    12 Query\tBEGIN\n" +
	"\t\t    12 Query\tUPDATE accounts SET bal = 1 WHERE id = 4\n" +
	"\t\t    12 Query\tUPDATE accounts SET bal = 1 WHERE id = 5\n" +
	"\t\t    12 Query\tROLLBACK WORK\n" +
	"240301 10:00:01\t    13 Query\tINSERT INTO accounts (id, bal) VALUES (6, 0)\n"

func TestRollback(t *testing.T) {
	for _, tc := range []struct {
		name, log string
		span      float64 // seconds the log spans (logSpan)
		line      int     // the ROLLBACK's line
	}{
		// 10:00:00.000 to 10:00:01.000 in milliseconds: 1.001 s.
		{"postgresql", rollbackPG, 1.001, 11},
		// Whole seconds 10:00:00 and 10:00:01: [10:00:00, 10:00:02), 2 s.
		{"mysql", rollbackMySQL, 2, 12},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := readText(t, tc.log, Options{})
			sum := summary(w)
			// Work: five updates ran, rolled back or not.
			var updates float64
			for _, op := range w.Ops {
				if strings.HasPrefix(op.Name, "update accounts") {
					updates += op.Rate
				}
			}
			if want := 5 / tc.span; !near(updates, want, 1e-9) {
				t.Errorf("updates at %g/s; want 5 / %g = %g/s\n%s", updates, tc.span, want, sum)
			}
			// Committed transactions: session 11/101's (ROLLBACK TO
			// SAVEPOINT did not end it: its three updates are one
			// transaction) and the autocommit insert; the rolled-back
			// one of session 12/202 is kept too, marked, with its two
			// updates (a spanning one cost shards' coordination).
			if committed := countCommitted(w.Txns); len(w.Txns) != 3 || committed != 2 {
				t.Fatalf("%d transactions, %d committed; want 3, 2\n%s", len(w.Txns), committed, sum)
			}
			if !has(sum, "rollback w=", ": update accounts {id=4} | update accounts {id=5}") {
				t.Errorf("no rolled-back transaction of updates 4, 5 in\n%s", sum)
			}
			if !has(sum, "txn w=", "update accounts {id=1} | update accounts {id=2} | update accounts {id=3}") {
				t.Errorf("no transaction of updates 1, 2, 3 in\n%s", sum)
			}
			if has(sum, "txn w=", "{id=4}") {
				t.Errorf("the rolled-back transaction is among the transactions\n%s", sum)
			}
			if w.RolledBackTxns != 1 {
				t.Errorf("RolledBackTxns = %g; want 1", w.RolledBackTxns)
			}
			want := "test.log:" + strconv.Itoa(tc.line) + ": 1 transaction ended in ROLLBACK"
			if !hasWarning(w, want) {
				t.Errorf("no warning %q in\n%s", want, sum)
			}
		})
	}
}

// TestRollbackChain: COMMIT AND CHAIN starts the next transaction, which
// ROLLBACK AND CHAIN ends uncommitted and opens a third, committed.
func TestRollbackChain(t *testing.T) {
	pg := `2024-03-01 10:00:00.000 UTC [101] app@db LOG:  statement: BEGIN;
2024-03-01 10:00:00.100 UTC [101] app@db LOG:  statement: UPDATE accounts SET bal = 1 WHERE id = 1;
2024-03-01 10:00:00.200 UTC [101] app@db LOG:  statement: COMMIT AND CHAIN;
2024-03-01 10:00:00.300 UTC [101] app@db LOG:  statement: UPDATE accounts SET bal = 1 WHERE id = 2;
2024-03-01 10:00:00.400 UTC [101] app@db LOG:  statement: ROLLBACK AND CHAIN;
2024-03-01 10:00:00.500 UTC [101] app@db LOG:  statement: UPDATE accounts SET bal = 1 WHERE id = 3;
2024-03-01 10:00:00.600 UTC [101] app@db LOG:  statement: UPDATE accounts SET bal = 1 WHERE id = 4;
2024-03-01 10:00:00.700 UTC [101] app@db LOG:  statement: COMMIT;
`
	my := "Time\t\t    Id Command\tArgument\n" +
		"240301 10:00:00\t    11 Query\tBEGIN WORK\n" +
		"\t\t    11 Query\tUPDATE accounts SET bal = 1 WHERE id = 1\n" +
		"\t\t    11 Query\tCOMMIT WORK AND CHAIN NO RELEASE\n" +
		"\t\t    11 Query\tUPDATE accounts SET bal = 1 WHERE id = 2\n" +
		"\t\t    11 Query\trollback and chain\n" +
		"\t\t    11 Query\tUPDATE accounts SET bal = 1 WHERE id = 3\n" +
		"\t\t    11 Query\tUPDATE accounts SET bal = 1 WHERE id = 4\n" +
		"\t\t    11 Query\tCOMMIT AND NO CHAIN;\n"
	for name, log := range map[string]string{"postgresql": pg, "mysql": my} {
		t.Run(name, func(t *testing.T) {
			w := readText(t, log, Options{})
			sum := summary(w)
			if countCommitted(w.Txns) != 2 || !strings.Contains(sum, ": update accounts {id=1}\n") ||
				!strings.Contains(sum, ": update accounts {id=3} | update accounts {id=4}\n") {
				t.Errorf("want transactions {1} and {3, 4}, got\n%s", sum)
			}
			if w.RolledBackTxns != 1 || !has(sum, "rollback w=", ": update accounts {id=2}") {
				t.Errorf("RolledBackTxns = %g; want 1, its update of id 2 kept as rolled back\n%s", w.RolledBackTxns, sum)
			}
		})
	}
}

func TestMyTxnWords(t *testing.T) {
	for text, want := range map[string][]ctl{
		"ROLLBACK WORK":                      {ctlRollback},
		"rollback work and no chain release": {ctlRollback},
		"COMMIT AND CHAIN":                   {ctlCommit, ctlBegin},
		"COMMIT NO RELEASE;":                 {ctlCommit},
		"BEGIN WORK":                         {ctlBegin},
		"ROLLBACK TO s1":                     nil,
		"ROLLBACK WORK TO SAVEPOINT s1":      nil,
		"COMMIT AND CHAIN RELEASE x":         nil,
		"SELECT 1":                           nil,
	} {
		var got []ctl
		for _, p := range myTxnWords(text) {
			got = append(got, p.ctl)
		}
		if !slices.Equal(got, want) {
			t.Errorf("myTxnWords(%q) = %v; want %v", text, got, want)
		}
	}
}

// countCommitted counts the transactions of txns that committed.
func countCommitted(txns []shardkey.Txn) int {
	n := 0
	for i := range txns {
		if txns[i].Committed() {
			n++
		}
	}
	return n
}
