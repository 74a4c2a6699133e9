package sqllog

import (
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"vitess.io/vitess/go/vt/sqlparser"
)

// SetValue is the new value an UPDATE assigns to a column: its literal
// text when the value is a literal, else Known is false (an expression,
// a subquery or a bind parameter). Null says the value is the literal
// NULL (Known false).
type SetValue struct {
	Text  string
	Known bool
	Null  bool
}

// UpdateSets returns, for each UPDATE in sql (parsed in dialect d, which
// must be MySQL or Postgres), the updated table's name and the columns its
// SET clause assigns. Explain uses it to see an UPDATE that changes a shard
// key, which moves the row to another shard.
func UpdateSets(sql string, d Dialect) (out map[string]map[string]SetValue, err error) {
	defer func() {
		if e := recover(); e != nil {
			out, err = nil, panicErr(d, e)
		}
	}()
	out = map[string]map[string]SetValue{}
	add := func(table, col string, v SetValue) {
		table, col = strings.ToLower(table), strings.ToLower(col)
		if out[table] == nil {
			out[table] = map[string]SetValue{}
		}
		out[table][col] = v
	}
	if d == Postgres {
		res, err := pg.Parse(sql)
		if err != nil {
			return nil, err
		}
		for _, rs := range res.Stmts {
			up := rs.Stmt.GetUpdateStmt()
			if up == nil {
				continue
			}
			for _, tl := range up.TargetList {
				rt := tl.GetResTarget()
				if rt == nil {
					continue
				}
				add(up.Relation.GetRelname(), rt.Name, pgSetValue(rt.Val))
			}
		}
		return out, nil
	}
	stmts, err := mysqlParser.ParseMultiple(sql)
	if err != nil {
		return nil, err
	}
	for _, st := range stmts {
		up, ok := st.(*sqlparser.Update)
		if !ok || len(up.TableExprs) != 1 {
			continue
		}
		at, ok := up.TableExprs[0].(*sqlparser.AliasedTableExpr)
		if !ok {
			continue
		}
		tn, ok := at.Expr.(sqlparser.TableName)
		if !ok {
			continue
		}
		for _, ue := range up.Exprs {
			v := SetValue{}
			switch l := ue.Expr.(type) {
			case *sqlparser.Literal:
				v = SetValue{Text: l.Val, Known: true}
			case *sqlparser.NullVal:
				v = SetValue{Null: true}
			}
			add(tn.Name.String(), ue.Name.Name.String(), v)
		}
	}
	return out, nil
}

func pgSetValue(n *pg.Node) SetValue {
	c := n.GetAConst()
	if c == nil {
		return SetValue{}
	}
	switch {
	case c.GetIsnull():
		return SetValue{Null: true}
	case c.GetIval() != nil:
		return SetValue{Text: strconv.FormatInt(int64(c.GetIval().Ival), 10), Known: true}
	case c.GetSval() != nil:
		return SetValue{Text: c.GetSval().Sval, Known: true}
	case c.GetFval() != nil:
		return SetValue{Text: c.GetFval().Fval, Known: true}
	}
	return SetValue{}
}
