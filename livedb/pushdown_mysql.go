package livedb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/go-sql-driver/mysql"

	"github.com/shardkey/shardkey"
)

// measure computes steps 1 and 2 of the pushed-down statistics (see
// pushdown.go) on MySQL/MariaDB: COUNT(DISTINCT) and a GROUP BY for the
// ten largest groups (both under the column's collation, as the server
// compares values), and the correlation with a one-column AUTO_INCREMENT
// primary key. MySQL has no built-in function of the postgres or citus
// engines' hash, so step 3 is left to the row sample.
func (s *mySession) measure(ctx context.Context, t *shardkey.TableInfo, cols []*shardkey.ColumnInfo, _ shardSpec) []error {
	from := quoteMySQL(s.dbName) + "." + quoteMySQL(t.Name) + " AS " + myOwnAlias
	method := "whole table, inside " + s.engine()
	var warns []error
	failed := func(c *shardkey.ColumnInfo, what string, err error) bool {
		var me *mysql.MySQLError
		if errors.As(err, &me) || errors.Is(err, context.DeadlineExceeded) {
			warns = append(warns, fmt.Errorf("table %s: column %s: %s inside the database failed (%v); its figures come from the row sample", t.Name, c.Name, what, err))
			return true
		}
		return false
	}
	pk, err := s.autoIncrementKey(ctx, t)
	if err != nil {
		return []error{err}
	}
	for _, c := range cols {
		m := &shardkey.MeasuredStats{Method: method}
		col := myOwnAlias + "." + quoteMySQL(c.Name)
		var nonNull int64
		err := s.conn.QueryRowContext(ctx, ownMark+" SELECT COUNT(*), COUNT("+col+"), COUNT(DISTINCT "+col+") FROM "+from).Scan(&m.Rows, &nonNull, &m.Distinct)
		if failed(c, "COUNT(DISTINCT)", err) {
			continue
		}
		if err != nil {
			return append(warns, err)
		}
		m.Nulls = m.Rows - nonNull
		top, err := s.myTop(ctx, from, col, c)
		if failed(c, "GROUP BY", err) {
			continue
		}
		if err != nil {
			return append(warns, err)
		}
		m.Top = top
		if pk != "" && myNumeric(c) {
			r, ok, err := s.myCorrelation(ctx, from, col, myOwnAlias+"."+quoteMySQL(pk), c)
			if failed(c, "the correlation with the primary key", err) {
				continue
			}
			if err != nil {
				return append(warns, err)
			}
			m.CorrelationDef = "Pearson's r of the value with the AUTO_INCREMENT primary key " + pk + " (insert order)"
			m.Correlation, m.HasCorrelation = r, ok
		}
		c.Measured = m
	}
	return warns
}

// autoIncrementKey returns t's primary key column when it is one
// AUTO_INCREMENT column, else "".
func (s *mySession) autoIncrementKey(ctx context.Context, t *shardkey.TableInfo) (string, error) {
	if len(t.PrimaryKey) != 1 {
		return "", nil
	}
	var extra string
	err := s.conn.QueryRowContext(ctx, ownMark+` SELECT EXTRA FROM information_schema.COLUMNS
WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND COLUMN_NAME = ?`, t.Name, t.PrimaryKey[0]).Scan(&extra)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	if strings.Contains(strings.ToLower(extra), "auto_increment") {
		return t.PrimaryKey[0], nil
	}
	return "", nil
}

// myNumeric reports whether c's values order as numbers (integers,
// floats, times), so that a correlation with insert order means growth.
func myNumeric(c *shardkey.ColumnInfo) bool {
	return c.Type.IsInt() || c.Type == shardkey.Float32 || c.Type == shardkey.Float64 || c.Type == shardkey.Timestamp
}

// myTop returns the ten largest non-NULL groups of col, ties by value.
func (s *mySession) myTop(ctx context.Context, from, col string, c *shardkey.ColumnInfo) ([]shardkey.ValueCount, error) {
	expr := strings.Replace(myExpr(c), quoteMySQL(c.Name), col, 1)
	rows, err := s.conn.QueryContext(ctx, ownMark+" SELECT "+expr+", COUNT(*) FROM "+from+" WHERE "+col+" IS NOT NULL GROUP BY "+col+" ORDER BY COUNT(*) DESC, "+col+" LIMIT 10")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []shardkey.ValueCount
	for rows.Next() {
		var cell sql.NullString
		var n int64
		if err := rows.Scan(&cell, &n); err != nil {
			return nil, err
		}
		var p *string
		if cell.Valid {
			p = &cell.String
		}
		v, err := cellValue(p, c.Type)
		if err != nil {
			return nil, fmt.Errorf("column %s: %v", c.Name, err)
		}
		out = append(out, shardkey.ValueCount{Value: v.String(), Rows: n})
	}
	return out, rows.Err()
}

// myCorrelation returns Pearson's r of col with pk over the rows where
// col is not NULL, in two passes (means, then centred sums: no
// cancellation on large values). MySQL has no corr().
func (s *mySession) myCorrelation(ctx context.Context, from, col, pk string, c *shardkey.ColumnInfo) (float64, bool, error) {
	x := strings.Replace(myExpr(c), quoteMySQL(c.Name), col, 1) + " * 1e0"
	y := pk + " * 1e0"
	var ax, ay sql.NullFloat64
	var n int64
	if err := s.conn.QueryRowContext(ctx, ownMark+" SELECT COUNT(*), AVG("+x+"), AVG("+y+") FROM "+from+" WHERE "+col+" IS NOT NULL").Scan(&n, &ax, &ay); err != nil {
		return 0, false, err
	}
	if n < 2 || !ax.Valid || !ay.Valid {
		return 0, false, nil
	}
	var sxy, sxx, syy sql.NullFloat64
	dx := fmt.Sprintf("(%s - %.17g)", x, ax.Float64)
	dy := fmt.Sprintf("(%s - %.17g)", y, ay.Float64)
	if err := s.conn.QueryRowContext(ctx, ownMark+" SELECT SUM("+dx+" * "+dy+"), SUM("+dx+" * "+dx+"), SUM("+dy+" * "+dy+") FROM "+from+" WHERE "+col+" IS NOT NULL").Scan(&sxy, &sxx, &syy); err != nil {
		return 0, false, err
	}
	r, ok := pearson(float64(n), 0, 0, sxx.Float64, syy.Float64, sxy.Float64)
	return r, ok, nil
}
