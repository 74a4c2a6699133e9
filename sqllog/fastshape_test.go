package sqllog

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/internal/loggen"
)

// fastCheck compares, for each statement, what the fast matcher gives
// (when an exemplar matches) with normalize and the cache lookup.
type fastCheck struct {
	mu      sync.Mutex
	fx      map[*cache]*fastIndex // exemplars hold their cache's templates
	fast, n int
	bad     []string
}

func (fc *fastCheck) check(t *testing.T, c *cache, sql string, d Dialect) {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	fx := fc.fx[c]
	if fx == nil {
		fx = &fastIndex{}
		fc.fx[c] = fx
	}
	fc.n++
	if !dmlLead(sql) {
		return
	}
	ft, flits, ok := fx.lookup(sql, d, nil)
	if !ok {
		c.analyze(sql, d, nil, nil, fx) // may make sql an exemplar
		return
	}
	fc.fast++
	flits = slices.Clone(flits)
	st, slits, _ := c.analyze(sql, d, nil, nil, nil)
	if ft != st || !slices.Equal(flits, slits) {
		if len(fc.bad) < 5 {
			buf, _ := normalize(nil, sql, d)
			fc.bad = append(fc.bad, sql+"\n  shape "+string(buf)+"\n  fast shape "+ft.text)
		}
	}
}

// TestFastShapeSame reads the test logs and TPC-C logs of every format
// and checks every statement the fast matcher serves against normalize
// and the cache (the path every statement took before it): the same
// template, the same literals.
func TestFastShapeSame(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for _, f := range []string{"gotpc-general.log", "mariadb-general.log", "mariadb-slow.log", "pg-csvlog.csv", "pg-jsonlog.json", "pg-stderr-duration.log", "pg-stderr.log"} {
		files = append(files, filepath.Join("testdata", f))
	}
	for _, format := range []string{"stderr", "csvlog", "jsonlog", "mysql-general", "mysql-slow"} {
		name := filepath.Join(dir, format+".log")
		f, err := os.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := loggen.Write(f, loggen.Options{Format: format, Bytes: 1 << 20, Seed: 3}); err != nil {
			t.Fatal(err)
		}
		f.Close()
		files = append(files, name)
	}
	fc := &fastCheck{fx: map[*cache]*fastIndex{}}
	testHookAnalyze = func(c *cache, sql string, d Dialect) { fc.check(t, c, sql, d) }
	defer func() { testHookAnalyze = nil }()
	for _, f := range files {
		if err := ReadFile(context.Background(), &shardkey.Workload{}, f, Options{}); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
	}
	for _, b := range fc.bad {
		t.Errorf("the fast matcher differs from normalize on\n%s", b)
	}
	// TPC-C statements differ in their values only: nearly all of them
	// are served by the matcher once their shapes are known.
	if fc.fast < fc.n*8/10 {
		t.Errorf("the fast matcher served %d of %d statements, want most", fc.fast, fc.n)
	}
}

// TestFastShapeLook: statements written like an exemplar except for the
// look of a literal, where normalize makes another shape (integer
// arithmetic, a constant expression, a number that is not one) or the
// same one: the matcher must give what normalize gives.
func TestFastShapeLook(t *testing.T) {
	cases := []struct {
		d    Dialect
		sqls []string
	}{
		{Postgres, []string{
			"UPDATE district SET d_next_o_id = 3001 + 1 WHERE d_id = 5 AND d_w_id = 7",
			"UPDATE district SET d_next_o_id = 3002 + 1 WHERE d_id = 6 AND d_w_id = 8",
			"UPDATE district SET d_next_o_id = 3001.5 + 1 WHERE d_id = 5 AND d_w_id = 7",
			"UPDATE district SET d_next_o_id = 3001 + 1.5 WHERE d_id = 5 AND d_w_id = 7",
			"UPDATE district SET d_next_o_id = 3001 + 1e3 WHERE d_id = 5 AND d_w_id = 7",
			"UPDATE district SET d_next_o_id = 3001 + '1' WHERE d_id = 5 AND d_w_id = 7",
		}},
		{Postgres, []string{
			"SELECT a FROM t WHERE b = 5 AND c = 'x' AND d = 2.5",
			"SELECT a FROM t WHERE b = 6 AND c = 'it''s' AND d = 3.5",
			"SELECT a FROM t WHERE b = .5 AND c = 'y' AND d = 4.5",
			"SELECT a FROM t WHERE b = 0 AND c = 'z' AND d = 4",
			"SELECT a FROM t WHERE b = 1_000 AND c = 'z' AND d = 1e5",
			"SELECT a FROM t WHERE b = 5 AND c = 'x' AND d = 2.5;",
			"SELECT a FROM t WHERE b = 5 AND c = 'x' AND d = 2.5 ;;",
			"SELECT a FROM t WHERE b = 5 AND c = 'x' AND d = 2.5 -- end",
			"SELECT a FROM t WHERE b = 5 AND c = 'x' AND d = 2.5x",
			"SELECT a FROM t WHERE b = 5 AND c = 'unterminated",
			"SELECT a FROM t WHERE b = 5 AND c = \"x\" AND d = 2.5", // a column
		}},
		{Postgres, []string{
			"SELECT a FROM t WHERE b = 5 - 2 AND c = 1",
			"SELECT a FROM t WHERE b = 5 - 2.0 AND c = 1",
			"SELECT a FROM t WHERE b = 5 - 'a' AND c = 1",
			"SELECT a FROM t WHERE b = 7 - 3 AND c = 2",
		}},
		{MySQL, []string{
			"SELECT a FROM t WHERE b = 5 AND c = 'x' AND e = \"q\"",
			"SELECT a FROM t WHERE b = 6 AND c = 'a\\'b' AND e = \"r\"",
			"SELECT a FROM t WHERE b = 6 AND c = \"a\" AND e = 'r'",
			"SELECT a FROM t WHERE b = 0x1F AND c = 'x' AND e = \"q\"",
			"SELECT a FROM t WHERE b = 7 AND c = 'x' AND e = \"q\" # c",
			"SELECT a FROM t WHERE b = 8 AND c = 'y' AND e = \"s\"",
		}},
	}
	for _, tc := range cases {
		c := &cache{}
		fx := &fastIndex{}
		served := 0
		for _, sql := range tc.sqls {
			ft, flits, ok := fx.lookup(sql, tc.d, nil)
			flits = slices.Clone(flits)
			st, slits, _ := c.analyze(sql, tc.d, nil, nil, nil)
			if !ok {
				c.analyze(sql, tc.d, nil, nil, fx)
				continue
			}
			served++
			if ft != st || !slices.Equal(flits, slits) {
				buf, _ := normalize(nil, sql, tc.d)
				t.Errorf("%s: the matcher gave shape %q, %v; normalize %q, %v", sql, ft.text, flits, buf, slits)
			}
		}
		if served == 0 {
			t.Errorf("%s...: no statement served by the matcher", tc.sqls[0])
		}
	}
}
