package web

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/scenario"
)

// Defaults of the cost limits a loaded spec must keep (Options.MaxRows
// and the others). Each bounds one thing a spec makes the server build,
// so that one request stays within about 250 MB while it is built and
// scored, and the server within 1 GB with Options.MaxScoring requests at
// work and its cache full (scripts/bench-memory.sh measures it).
const (
	DefaultMaxRows       = 2_000_000 // rows generated, all tables
	DefaultMaxCells      = 8_000_000 // rows x columns generated, all tables
	DefaultMaxDistinct   = 1_000_000 // distinct values of uniform and zipf columns, all columns
	DefaultMaxInstances  = 500_000   // operation instances, all operations
	DefaultMaxStatements = 500_000   // transaction statements, all transactions
)

// weight measures a built workload's memory for the cache, in the units
// of the limits: its generated cells, operation instances' conditions and
// transaction statements. The cache keeps at most 2 * DefaultMaxCells
// (Options.MaxCells) of it.
func weight(w *shardkey.Workload) int64 {
	var n int64
	for _, t := range w.Tables {
		n += int64(t.Rows) * int64(len(t.Columns))
	}
	for _, o := range w.Ops {
		for _, in := range o.Instances {
			n += 1 + int64(len(in.Conds))
		}
	}
	for _, tx := range w.Txns {
		n += int64(len(tx.Stmts))
	}
	return n
}

// specCost is what a spec asks the server to build, estimated from the
// spec alone, before anything is generated. Each figure is an upper bound
// of what scenario.Build makes.
type specCost struct {
	rows, cells, distinct, instances, statements float64
}

// limits are the bounds checkCost applies.
type limits struct {
	rows, cells, distinct, instances, statements int
}

// checkCost estimates what spec would build and fails, before building
// anything, when one figure is past its limit: an *shardkey.InputError
// naming the spec's line and the field that takes it past (TABLE.rows,
// TABLE.per_parent, TABLE.COLUMN.distinct, param_samples,
// operations.NAME.where, transactions.NAME.steps), the estimate and the
// limit. The estimate:
//
//   - rows: a root table's rows (DefaultRows when unset); a child's, its
//     parent's rows times the most per_parent;
//   - cells: each table's rows times its columns (its own and, for a
//     child, every column of its parent, an upper bound of those it
//     inherits);
//   - distinct: the distinct values of every uniform and zipf column
//     (plus one for a celebrity);
//   - instances: per operation, param_samples, plus the distinct values
//     of the largest uniform or zipf column it enumerates exactly (a "?"
//     filter on it, or an insert's drawn column);
//   - statements: per transaction, param_samples times the sum of its
//     steps' largest repeat counts.
func checkCost(spec *scenario.Spec, lim limits) error {
	file := spec.File()
	byName := map[string]*scenario.TableSpec{}
	for _, t := range spec.Tables {
		byName[t.Name] = t
	}
	// rowsOf and colsOf follow parents; a cycle (which Build reports)
	// counts nothing.
	var rowsOf func(t *scenario.TableSpec, depth int) float64
	rowsOf = func(t *scenario.TableSpec, depth int) float64 {
		if depth > len(spec.Tables) {
			return 0
		}
		if t.Parent == "" {
			if t.Rows == 0 {
				return scenario.DefaultRows
			}
			return float64(max(t.Rows, 0))
		}
		p := byName[t.Parent]
		if p == nil {
			return 0
		}
		return rowsOf(p, depth+1) * float64(mostOf(t.PerParent))
	}
	var colsOf func(t *scenario.TableSpec, depth int) float64
	colsOf = func(t *scenario.TableSpec, depth int) float64 {
		if t == nil || depth > len(spec.Tables) {
			return 0
		}
		n := float64(len(t.Columns))
		if t.Parent != "" {
			n += colsOf(byName[t.Parent], depth+1)
		}
		return n
	}
	samples := spec.ParamSamples
	if samples <= 0 {
		samples = scenario.DefaultParamSamples
	}
	var c specCost
	over := func(total float64, limit int) bool { return total > float64(limit) }

	for _, t := range spec.Tables {
		n := rowsOf(t, 0)
		c.rows += n
		if over(c.rows, lim.rows) {
			field := t.Name + ".rows"
			if t.Parent != "" {
				field = t.Name + ".per_parent"
			}
			return shardkey.Errorf(file, t.Line, field, "the playground generates at most %s rows in all; this spec asks for %s or more (use `shardkey score --workload` for larger ones)", count(float64(lim.rows)), count(c.rows))
		}
		c.cells += n * colsOf(t, 0)
		if over(c.cells, lim.cells) {
			return shardkey.Errorf(file, t.Line, t.Name+".columns", "the playground generates at most %s cells (rows x columns) in all; this spec asks for %s or more (use `shardkey score --workload` for larger ones)", count(float64(lim.cells)), count(c.cells))
		}
		for _, col := range t.Columns {
			d := finiteDistinct(col)
			c.distinct += d
			if over(c.distinct, lim.distinct) {
				return shardkey.Errorf(file, col.Line, t.Name+"."+col.Name+".distinct", "the playground's uniform and zipf columns have at most %s distinct values in all; this spec asks for %s or more (use `shardkey score --workload` for larger ones)", count(float64(lim.distinct)), count(c.distinct))
			}
		}
	}
	for _, o := range spec.Operations {
		if o == nil {
			continue
		}
		t := byName[o.Table]
		if t == nil {
			continue // Build reports it
		}
		enum, col := 0.0, ""
		if strings.EqualFold(o.Kind, "insert") {
			for _, cs := range t.Columns {
				if d := finiteDistinct(cs); d > enum {
					enum, col = d, cs.Name
				}
			}
		} else if o.Where.Kind != 0 {
			for i := 0; i+1 < len(o.Where.Content); i += 2 {
				k, v := o.Where.Content[i], o.Where.Content[i+1]
				if v.Value != "?" {
					continue
				}
				for _, cs := range t.Columns {
					if d := finiteDistinct(cs); cs.Name == k.Value && d > enum {
						enum, col = d, "where."+cs.Name
					}
				}
			}
		}
		c.instances += float64(samples) + enum
		if over(c.instances, lim.instances) {
			field, why := "param_samples", fmt.Sprintf("param_samples %s per operation", count(float64(samples)))
			if enum > float64(samples) {
				field, why = "operations."+o.Name+"."+col, fmt.Sprintf("%s distinct values enumerated by operation %q", count(enum), o.Name)
			}
			line := o.Line
			if field == "param_samples" {
				line = 0
			}
			return shardkey.Errorf(file, line, field, "the playground builds at most %s operation instances in all; this spec asks for %s or more (%s; use `shardkey score --workload` for larger ones)", count(float64(lim.instances)), count(c.instances), why)
		}
	}
	for _, ts := range spec.Transactions {
		if ts == nil {
			continue
		}
		per := 0.0
		for _, st := range ts.Steps {
			if st != nil {
				per += float64(mostOf(st.Repeat))
			}
		}
		c.statements += float64(samples) * per
		if over(c.statements, lim.statements) {
			return shardkey.Errorf(file, ts.Line, "transactions."+ts.Name+".steps", "the playground builds at most %s transaction statements in all; this spec asks for %s or more (param_samples %s x up to %s statements a transaction: steps x repeat; use `shardkey score --workload` for larger ones)", count(float64(lim.statements)), count(c.statements), count(float64(samples)), count(per))
		}
	}
	return nil
}

// mostOf returns the largest count of a per_parent or repeat field ("N"
// or "LO-HI"); 1 when empty or not a positive number (Build reports it).
func mostOf(s string) int {
	if s == "" {
		return 1
	}
	_, z, isRange := strings.Cut(s, "-")
	if !isRange {
		z = s
	}
	n, err := strconv.Atoi(strings.TrimSpace(z))
	if err != nil || n < 1 {
		return 1
	}
	return n
}

// finiteDistinct returns the distinct values a uniform or zipf column
// generates (and its celebrity), 0 for other generators.
func finiteDistinct(c *scenario.ColumnSpec) float64 {
	if c == nil {
		return 0
	}
	switch strings.ToLower(c.Gen) {
	case "uniform", "zipf":
		d := float64(max(c.Distinct, 0))
		if c.Celebrity > 0 {
			d++
		}
		return d
	}
	return 0
}

// count formats n with thousands separators: 5,000,000.
func count(n float64) string {
	s := strconv.FormatFloat(n, 'f', 0, 64)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}
