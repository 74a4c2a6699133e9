package livedb

import (
	"fmt"
	"os"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/shardkey/shardkey"
)

// ReadSchema reads a file of CREATE TABLE statements (and ALTER TABLE ...
// ADD FOREIGN KEY / PRIMARY KEY) into a catalog: each table's columns in
// declared order with their types, its primary key, its unique keys
// (UNIQUE constraints, UNIQUE KEY / UNIQUE INDEX in CREATE TABLE) and its
// foreign keys,
// as --from reads them from a live database. The file is parsed by
// PostgreSQL's own parser (pg_query_go) and, when that fails, by Vitess's
// MySQL parser; other statements are ignored. Errors name the file and,
// where the parser gives it, the line.
func ReadSchema(file string) (*shardkey.Catalog, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	src := string(data)
	cat := &shardkey.Catalog{Source: file}
	pgErr := readPGSchema(src, cat)
	if pgErr == nil {
		cat.Engine = "postgresql (schema file)"
		return cat, nil
	}
	cat.Tables = nil
	myErr := readMySQLSchema(src, cat)
	if myErr == nil {
		cat.Engine = "mysql (schema file)"
		return cat, nil
	}
	return nil, fmt.Errorf("%s: not CREATE TABLE statements PostgreSQL or MySQL parses: %v (PostgreSQL); %v (MySQL)", file, pgErr, myErr)
}

func (c *catBuilder) table(name string) *shardkey.TableInfo {
	if t := c.cat.Table(name); t != nil {
		return t
	}
	t := &shardkey.TableInfo{Name: name, RowEstimate: -1}
	c.cat.Tables = append(c.cat.Tables, t)
	return t
}

type catBuilder struct{ cat *shardkey.Catalog }

func pgNames(nodes []*pg_query.Node) []string {
	var out []string
	for _, n := range nodes {
		if s := n.GetString_(); s != nil {
			out = append(out, s.Sval)
		}
	}
	return out
}

// pgTypeName maps a declared PostgreSQL type (the last part of its name,
// as the parser gives it: int4, int8, serial, varchar, ...) to the
// catalog's internal name.
func pgTypeName(names []string) string {
	if len(names) == 0 {
		return "text"
	}
	n := names[len(names)-1]
	switch n {
	case "serial", "serial4":
		return "int4"
	case "bigserial", "serial8":
		return "int8"
	case "smallserial", "serial2":
		return "int2"
	}
	return n
}

func readPGSchema(src string, cat *shardkey.Catalog) error {
	tree, err := pg_query.Parse(src)
	if err != nil {
		return err
	}
	b := &catBuilder{cat}
	constraint := func(t *shardkey.TableInfo, col string, c *pg_query.Constraint) {
		switch c.Contype {
		case pg_query.ConstrType_CONSTR_PRIMARY:
			if col != "" {
				t.PrimaryKey = []string{col}
			} else {
				t.PrimaryKey = pgNames(c.Keys)
			}
		case pg_query.ConstrType_CONSTR_UNIQUE:
			if col != "" {
				t.UniqueKeys = append(t.UniqueKeys, []string{col})
			} else if ks := pgNames(c.Keys); len(ks) > 0 {
				t.UniqueKeys = append(t.UniqueKeys, ks)
			}
		case pg_query.ConstrType_CONSTR_FOREIGN:
			if c.Pktable == nil {
				return
			}
			fk := shardkey.ForeignKey{Columns: pgNames(c.FkAttrs), RefTable: c.Pktable.Relname, RefColumns: pgNames(c.PkAttrs)}
			if col != "" {
				fk.Columns = []string{col}
			}
			t.ForeignKeys = append(t.ForeignKeys, fk)
		}
	}
	for _, raw := range tree.Stmts {
		switch {
		case raw.Stmt.GetCreateStmt() != nil:
			cs := raw.Stmt.GetCreateStmt()
			t := b.table(cs.Relation.Relname)
			for _, el := range cs.TableElts {
				switch {
				case el.GetColumnDef() != nil:
					cd := el.GetColumnDef()
					typ := "text"
					if cd.TypeName != nil {
						typ = pgTypeName(pgNames(cd.TypeName.Names))
					}
					t.Columns = append(t.Columns, &shardkey.ColumnInfo{Name: cd.Colname, DBType: typ, Type: pgTypeByName(typ)})
					for _, cn := range cd.Constraints {
						if c := cn.GetConstraint(); c != nil {
							constraint(t, cd.Colname, c)
						}
					}
				case el.GetConstraint() != nil:
					constraint(t, "", el.GetConstraint())
				}
			}
			for _, cn := range cs.Constraints {
				if c := cn.GetConstraint(); c != nil {
					constraint(t, "", c)
				}
			}
		case raw.Stmt.GetIndexStmt() != nil:
			// CREATE UNIQUE INDEX ... ON t (cols): a unique key of t
			// (a partial or expression index is not one over the columns).
			ix := raw.Stmt.GetIndexStmt()
			if !ix.Unique || ix.Primary || ix.Relation == nil || ix.WhereClause != nil {
				continue
			}
			var ks []string
			for _, p := range ix.IndexParams {
				if el := p.GetIndexElem(); el != nil && el.Name != "" {
					ks = append(ks, el.Name)
				} else {
					ks = nil
					break
				}
			}
			if len(ks) > 0 {
				t := b.table(ix.Relation.Relname)
				t.UniqueKeys = append(t.UniqueKeys, ks)
			}
		case raw.Stmt.GetAlterTableStmt() != nil:
			at := raw.Stmt.GetAlterTableStmt()
			if at.Relation == nil {
				continue
			}
			t := b.table(at.Relation.Relname)
			for _, cmd := range at.Cmds {
				ac := cmd.GetAlterTableCmd()
				if ac == nil || ac.Subtype != pg_query.AlterTableType_AT_AddConstraint || ac.Def == nil {
					continue
				}
				if c := ac.Def.GetConstraint(); c != nil {
					constraint(t, "", c)
				}
			}
		}
	}
	if len(cat.Tables) == 0 {
		return fmt.Errorf("no CREATE TABLE statement")
	}
	return nil
}

func readMySQLSchema(src string, cat *shardkey.Catalog) error {
	p, err := sqlparser.New(sqlparser.Options{MySQLServerVersion: "8.0.40"})
	if err != nil {
		return err
	}
	pieces, err := p.SplitStatementToPieces(src)
	if err != nil {
		return err
	}
	b := &catBuilder{cat}
	cols := func(cs sqlparser.Columns) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c.String())
		}
		return out
	}
	for _, piece := range pieces {
		if strings.TrimSpace(piece) == "" {
			continue
		}
		st, err := p.Parse(piece)
		if err != nil {
			line := 1 + strings.Count(src[:max(0, strings.Index(src, piece))], "\n")
			return fmt.Errorf("line %d: %v", line, err)
		}
		switch s := st.(type) {
		case *sqlparser.CreateTable:
			if s.TableSpec == nil {
				continue
			}
			t := b.table(s.Table.Name.String())
			for _, cd := range s.TableSpec.Columns {
				dt := strings.ToLower(cd.Type.Type)
				ct := dt
				if cd.Type.Unsigned {
					ct += " unsigned"
				}
				t.Columns = append(t.Columns, &shardkey.ColumnInfo{Name: cd.Name.String(), DBType: ct, Type: myType(dt, ct)})
				if o := cd.Type.Options; o != nil {
					switch o.KeyOpt {
					case sqlparser.ColKeyPrimary:
						t.PrimaryKey = []string{cd.Name.String()}
					case sqlparser.ColKeyUnique, sqlparser.ColKeyUniqueKey:
						t.UniqueKeys = append(t.UniqueKeys, []string{cd.Name.String()})
					}
					if r := o.Reference; r != nil {
						t.ForeignKeys = append(t.ForeignKeys, shardkey.ForeignKey{Columns: []string{cd.Name.String()}, RefTable: r.ReferencedTable.Name.String(), RefColumns: cols(r.ReferencedColumns)})
					}
				}
			}
			for _, ix := range s.TableSpec.Indexes {
				if ix.Info == nil {
					continue
				}
				var ks []string
				for _, c := range ix.Columns {
					ks = append(ks, c.Column.String())
				}
				switch ix.Info.Type {
				case sqlparser.IndexTypePrimary:
					t.PrimaryKey = ks
				case sqlparser.IndexTypeUnique:
					t.UniqueKeys = append(t.UniqueKeys, ks)
				}
			}
			for _, c := range s.TableSpec.Constraints {
				if fk, ok := c.Details.(*sqlparser.ForeignKeyDefinition); ok && fk.ReferenceDefinition != nil {
					t.ForeignKeys = append(t.ForeignKeys, shardkey.ForeignKey{Columns: cols(fk.Source), RefTable: fk.ReferenceDefinition.ReferencedTable.Name.String(), RefColumns: cols(fk.ReferenceDefinition.ReferencedColumns)})
				}
			}
		case *sqlparser.AlterTable:
			t := b.table(s.Table.Name.String())
			for _, opt := range s.AlterOptions {
				ac, ok := opt.(*sqlparser.AddConstraintDefinition)
				if !ok || ac.ConstraintDefinition == nil {
					continue
				}
				if fk, ok := ac.ConstraintDefinition.Details.(*sqlparser.ForeignKeyDefinition); ok && fk.ReferenceDefinition != nil {
					t.ForeignKeys = append(t.ForeignKeys, shardkey.ForeignKey{Columns: cols(fk.Source), RefTable: fk.ReferenceDefinition.ReferencedTable.Name.String(), RefColumns: cols(fk.ReferenceDefinition.ReferencedColumns)})
				}
			}
		}
	}
	if len(cat.Tables) == 0 {
		return fmt.Errorf("no CREATE TABLE statement")
	}
	return nil
}

// MergeCatalog adds what schema says to w's catalog (creating one): the
// primary and foreign keys of tables the catalog lacks or leaves without
// them; and, for a table of the schema the workload does not have yet, an
// empty table with the schema's columns in order, so that a log's
// statements (INSERT without a column list) resolve against it.
func MergeCatalog(w *shardkey.Workload, schema *shardkey.Catalog) {
	cat := w.Catalog
	if cat == nil {
		cat = &shardkey.Catalog{Source: schema.Source, Engine: schema.Engine}
	}
	for _, st := range schema.Tables {
		t := cat.Table(st.Name)
		if t == nil {
			cp := *st
			if wt := w.Table(st.Name); wt != nil {
				cp.SampleRows = wt.Rows
			}
			cat.Tables = append(cat.Tables, &cp)
		} else {
			if len(t.PrimaryKey) == 0 {
				t.PrimaryKey = st.PrimaryKey
			}
			if len(t.ForeignKeys) == 0 {
				t.ForeignKeys = st.ForeignKeys
			}
			if len(t.UniqueKeys) == 0 {
				t.UniqueKeys = st.UniqueKeys
			}
		}
		if w.Table(st.Name) == nil {
			nt := &shardkey.Table{Name: st.Name, Monotonic: map[string]bool{}}
			for _, c := range st.Columns {
				nt.Columns = append(nt.Columns, &shardkey.Column{Name: c.Name, Type: c.Type})
			}
			w.Tables = append(w.Tables, nt)
		}
	}
	w.Catalog = cat
}

// pgTypeByName maps a PostgreSQL type name, as a schema file writes it
// (after pgTypeName), to the shardkey type a live read would give the
// column: the same mapping as pgType's by OID.
func pgTypeByName(typname string) shardkey.Type {
	switch typname {
	case "int2", "bool":
		return shardkey.Int16
	case "int4":
		return shardkey.Int32
	case "int8", "oid":
		return shardkey.Int64
	case "float4":
		return shardkey.Float32
	case "float8", "numeric", "money":
		return shardkey.Float64
	case "bytea":
		return shardkey.Bytes
	case "uuid":
		return shardkey.UUID
	case "timestamp", "timestamptz", "date":
		return shardkey.Timestamp
	}
	return shardkey.Text
}
