package shardkey

import "strings"

// ShapeName names a statement shape, the unit every reader groups
// statements into operations by (row and query samples, logs, statement
// statistics): the kind, the table and the columns the filter binds with
// their operators, "read orders where customer_id = ? and order_month in
// (?)". Values are not part of a shape. conds index t.Columns.
func ShapeName(t *Table, kind Kind, conds []Cond) string {
	var sb strings.Builder
	sb.WriteString(kind.String())
	sb.WriteString(" ")
	sb.WriteString(t.Name)
	if kind == Insert {
		return sb.String()
	}
	if len(conds) == 0 {
		sb.WriteString(" (all rows)")
		return sb.String()
	}
	sb.WriteString(" where ")
	for i, c := range conds {
		if i > 0 {
			sb.WriteString(" and ")
		}
		sb.WriteString(t.Columns[c.Col].Name)
		switch c.Op {
		case Eq:
			sb.WriteString(" = ?")
		case In:
			sb.WriteString(" in (?)")
		case Range:
			sb.WriteString(" in range")
		}
	}
	return sb.String()
}
