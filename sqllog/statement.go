package sqllog

import (
	"errors"
	"fmt"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/shardkey/shardkey"
)

// Statement is one SQL statement parsed on its own (for explain).
type Statement struct {
	SQL     string
	Dialect Dialect
	// How says how the dialect was chosen: "given", or the clue that
	// decided it ("backtick-quoted identifiers", "$n parameters or ::
	// casts", "only the mysql parser accepts it", ...).
	How string
	// Warnings are what Bind found that did not stop it: values outside
	// their column's type, which match no row.
	Warnings []error
	t        *template
	lit      []lit
}

// Access is one table a statement touches, with its conditions
// (shardkey.Access).
type Access = shardkey.Access

// ParseDialect returns the dialect named s ("mysql", "mariadb",
// "postgresql", "postgres", "pg"), or 0 for "".
func ParseDialect(s string) (Dialect, error) {
	switch strings.ToLower(s) {
	case "":
		return 0, nil
	case "mysql", "mariadb":
		return MySQL, nil
	case "postgresql", "postgres", "pg":
		return Postgres, nil
	}
	return 0, fmt.Errorf("unknown dialect %q (want mysql or postgresql)", s)
}

// ParseStatement parses sql in dialect d, or, when d is 0, in the dialect
// its text shows (backticks: MySQL; $n parameters or :: casts: PostgreSQL),
// else in whichever parser accepts it (PostgreSQL when both do). It fails
// when the statement does not parse.
func ParseStatement(sql string, d Dialect) (*Statement, error) {
	if strings.TrimSpace(strings.Trim(strings.TrimSpace(sql), ";")) == "" {
		return nil, &shardkey.UsageError{Msg: "the statement is empty: give one SQL statement"}
	}
	if n := statementCount(sql, d); n > 1 {
		return nil, &shardkey.UsageError{Msg: fmt.Sprintf("%d statements given: explain reads one statement at a time (a transaction's statements are explained one by one)", n)}
	}
	s := &Statement{SQL: sql, Dialect: d, How: "given"}
	if d == 0 {
		switch {
		case strings.Contains(sql, "`"):
			s.Dialect, s.How = MySQL, "backtick-quoted identifiers"
		case hasPGParam(sql) || strings.Contains(sql, "::"):
			s.Dialect, s.How = Postgres, "$n parameters or :: casts"
		}
	}
	c := &cache{}
	if s.Dialect != 0 {
		t, lits, _ := c.analyze(sql, s.Dialect, nil, nil, nil)
		if t.err != nil {
			return nil, fmt.Errorf("%s parser: %v", s.Dialect, t.err)
		}
		s.t, s.lit = t, lits
		return s, nil
	}
	pt, plits, _ := c.analyze(sql, Postgres, nil, nil, nil)
	mt, mlits, _ := (&cache{}).analyze(sql, MySQL, nil, nil, nil)
	switch {
	case pt.err == nil && mt.err == nil:
		s.Dialect, s.How, s.t, s.lit = Postgres, "both parsers accept it; read as postgresql (--dialect mysql to change)", pt, plits
	case pt.err == nil:
		s.Dialect, s.How, s.t, s.lit = Postgres, "only the postgresql parser accepts it", pt, plits
	case mt.err == nil:
		s.Dialect, s.How, s.t, s.lit = MySQL, "only the mysql parser accepts it", mt, mlits
	default:
		return nil, fmt.Errorf("neither parser accepts the statement: postgresql: %v; mysql: %v", pt.err, mt.err)
	}
	return s, nil
}

// statementCount returns how many statements sql holds by the splitter of
// dialect d (both dialects' when d is 0: the larger count), or 1 when the
// text does not split (the parser then reports what is wrong).
func statementCount(sql string, d Dialect) int {
	n := 1
	if d != MySQL {
		if parts, err := guardSplit(func() ([]string, error) { return pg_query.SplitWithParser(sql, true) }); err == nil {
			n = max(n, nonEmpty(parts))
		}
	}
	if d != Postgres {
		if parts, err := guardSplit(func() ([]string, error) { return mysqlParser.SplitStatementToPieces(sql) }); err == nil {
			n = max(n, nonEmpty(parts))
		}
	}
	return n
}

// guardSplit runs a splitter, turning a panic into an error.
func guardSplit(f func() ([]string, error)) (parts []string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("splitter panicked: %v", r)
		}
	}()
	return f()
}

func nonEmpty(parts []string) int {
	n := 0
	for _, p := range parts {
		if strings.TrimSpace(strings.Trim(strings.TrimSpace(p), ";")) != "" {
			n++
		}
	}
	return n
}

func hasPGParam(s string) bool {
	for i := 0; i+1 < len(s); i++ {
		if s[i] == '$' && isDigit(s[i+1]) && (i == 0 || !isIdent(s[i-1])) {
			return true
		}
	}
	return false
}

// ErrNotDML is returned by Bind for statements that touch no table
// (BEGIN, SET, SELECT 1, DDL).
var ErrNotDML = errors.New("the statement reads or writes no table")

// Bind resolves the statement against w and returns the tables it
// touches, in order: a join gives one access per table (with join
// equalities carrying bound values across), a multi-row INSERT one per
// row. Tables and columns w does not have are created, typed by types
// (by column or table.column) or else by the statement's values. A bind
// parameter ($1, ?) has no value here and is an error.
func (s *Statement) Bind(w *shardkey.Workload, types map[string]shardkey.Type) ([]Access, error) {
	a := newAgg(w, "", Options{Types: types})
	var samples []sample
	params := false
	for k := range s.t.parts {
		p := &s.t.parts[k]
		if p.ctl != ctlDML {
			continue
		}
		p = a.resolvePart(p, s.t.text, 0)
		vals := p.bind(s.lit, nil)
		for i := range p.acc {
			for j, v := range vals[i] {
				if v.kind == litNoValue {
					// A bind parameter: a value known when the statement
					// runs, as a planner sees it (Vitess plans id = :v1
					// as one shard, EqualUnique).
					vals[i][j].kind = litUnique
					if !params {
						params = true
						s.Warnings = append(s.Warnings, errors.New("the statement has bind parameters ($1, ?) without values: each is read as one value known only at run time (write the values in to route them)"))
					}
				}
			}
			ai := a.info(&p.acc[i])
			sm := sample{ai: ai, acc: &p.acc[i], vals: vals[i], w: 1}
			if len(p.acc[i].peers) > 0 {
				if peers := a.peerSamples(nil, p, vals, i); peers != nil {
					sm.join = &sampleJoin{peers: peers}
				}
			}
			a.offer(ai.op, sm, 1)
			samples = append(samples, sm)
		}
	}
	if len(samples) == 0 {
		return nil, ErrNotDML
	}
	a.setTypes()
	a.fillRows()
	out := make([]Access, 0, len(samples))
	fv := int32(0)
	for _, sm := range samples {
		out = append(out, Access{Table: sm.ai.op.table, Kind: sm.ai.op.kind, Conds: a.conds(sm, &fv), None: sm.acc.none, Partial: sm.acc.partial, Loose: sm.acc.loose, UseVindex: sm.acc.use, IgnoreVindex: sm.acc.ignore, Peers: a.peers(sm)})
	}
	if a.dropped > 0 {
		s.Warnings = append(s.Warnings, fmt.Errorf("%d value(s) do not convert to their column's type (the first, %s): they match no row", a.dropped, a.firstDrop))
	}
	return out, nil
}

// MultipleVindexHints returns the tables of a MySQL statement that carry
// more than one Vitess vindex hint (USE VINDEX (a) IGNORE VINDEX (b), or
// two USE VINDEX), each as the statement names it (keyspace.table when
// qualified), in the statement's order; nil for none and for a PostgreSQL
// statement. Vitess refuses such a statement when it plans it: VT09020
// "can not use multiple vindex hints for table %s" (checkAliasedTableExpr,
// go/vt/vtgate/semantics/check_invalid.go; vterrors/code.go, v0.24.4).
func (s *Statement) MultipleVindexHints() (out []string) {
	if s.Dialect != MySQL {
		return nil
	}
	defer func() {
		if recover() != nil { // a parser panic: nothing to report here
			out = nil
		}
	}()
	stmts, err := mysqlParser.ParseMultiple(s.SQL)
	if err != nil {
		return nil
	}
	for _, st := range stmts {
		_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
			t, ok := n.(*sqlparser.AliasedTableExpr)
			if !ok {
				return true, nil
			}
			k := 0
			for _, h := range t.Hints {
				if h.Type.IsVindexHint() {
					k++
				}
			}
			if k > 1 {
				if tn, err := t.TableName(); err == nil {
					out = append(out, sqlparser.String(tn))
				}
			}
			return true, nil
		}, st)
	}
	return out
}
