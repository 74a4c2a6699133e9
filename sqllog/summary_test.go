package sqllog

import (
	"fmt"
	"strings"

	"github.com/shardkey/shardkey"
)

// summary prints a workload compactly for tests: tables, operations with
// rates and their first instances, transactions, warnings.
func summary(w *shardkey.Workload) string {
	var sb strings.Builder
	for _, t := range w.Tables {
		var cols []string
		for _, c := range t.Columns {
			cols = append(cols, c.Name+" "+c.Type.String())
		}
		fmt.Fprintf(&sb, "table %s(%s)\n", t.Name, strings.Join(cols, ", "))
	}
	for _, op := range w.Ops {
		fmt.Fprintf(&sb, "op %q rate=%.4g n=%d\n", op.Name, op.Rate, len(op.Instances))
		for i, in := range op.Instances {
			if i == 3 {
				break
			}
			fmt.Fprintf(&sb, "  %s\n", condsText(w.Tables[op.Table], in.Conds))
		}
	}
	for _, tx := range w.Txns {
		var st []string
		for _, s := range tx.Stmts {
			t := w.Tables[s.Table]
			st = append(st, fmt.Sprintf("%s %s %s", s.Kind, t.Name, condsText(t, s.Conds)))
		}
		what := "txn"
		if tx.RolledBack {
			what = "rollback" // no "txn w=": not a committed transaction
		}
		fmt.Fprintf(&sb, "%s w=%.4g: %s\n", what, tx.Weight, strings.Join(st, " | "))
	}
	for _, e := range w.Warnings {
		fmt.Fprintf(&sb, "warning: %v\n", e)
	}
	return sb.String()
}

func condsText(t *shardkey.Table, conds []shardkey.Cond) string {
	var parts []string
	for _, c := range conds {
		name := t.Columns[c.Col].Name
		switch c.Op {
		case shardkey.Eq:
			switch c.Fresh {
			case shardkey.FreshNewest:
				parts = append(parts, name+"=<newest>")
			case shardkey.FreshUnique:
				parts = append(parts, name+"=<unique>")
			default:
				parts = append(parts, fmt.Sprintf("%s=%v", name, c.Val))
			}
		case shardkey.In:
			var vs []string
			for _, v := range c.List {
				vs = append(vs, v.String())
			}
			switch {
			case c.Unknown < 0:
				vs = append(vs, "<list>")
			case c.Unknown > 0:
				vs = append(vs, fmt.Sprintf("<%d unknown>", c.Unknown))
			}
			parts = append(parts, fmt.Sprintf("%s IN (%s)", name, strings.Join(vs, ",")))
		case shardkey.Range:
			b := c.Bounds
			s := name + " in "
			if b.HasLo {
				if b.LoIncl {
					s += "["
				} else {
					s += "("
				}
				s += b.Lo.String()
			} else {
				s += "(-inf"
			}
			s += ","
			if b.HasHi {
				s += b.Hi.String()
				if b.HiIncl {
					s += "]"
				} else {
					s += ")"
				}
			} else {
				s += "+inf)"
			}
			parts = append(parts, s)
		}
	}
	return "{" + strings.Join(parts, " ") + "}"
}
