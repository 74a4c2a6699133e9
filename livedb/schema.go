package livedb

import (
	"cmp"
	"fmt"
	"os"
	"regexp"
	"slices"
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
// MySQL parser in its strict mode (ParseStrictDDL: its lenient Parse
// returns what it read of a CREATE TABLE before a syntax error, columns
// missing, and no error); other statements are ignored.
//
// A statement that shapes the catalog (CREATE TABLE, ALTER TABLE, CREATE
// INDEX) and that neither parser reads is an error naming the file and the
// statement's first line; any other statement neither reads (a trigger or
// routine in mysqldump's DELIMITER blocks) is skipped with a warning.
// psql meta-commands (pg_dump's \connect, \restrict) and the mysql
// client's DELIMITER are read as those clients read them. The warnings, each "file:line: ...", are what
// did not stop reading: a table created twice (the first definition is
// kept, as the database would refuse the second) and a foreign key to a
// table the file does not create.
func ReadSchema(file string) (*shardkey.Catalog, []error, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, nil, err
	}
	src := string(data)
	cat := &shardkey.Catalog{Source: file}
	b := &catBuilder{cat: cat, file: file, src: src}
	pgErr := readPGSchema(b)
	if pgErr == nil {
		cat.Engine = "postgresql (schema file)"
		return cat, b.finish(), nil
	}
	cat.Tables = nil
	b = &catBuilder{cat: cat, file: file, src: src}
	myErr := readMySQLSchema(b)
	if myErr == nil {
		cat.Engine = "mysql (schema file)"
		return cat, b.finish(), nil
	}
	if err := unreadable(file, src); err != nil {
		return nil, nil, err
	}
	return nil, nil, fmt.Errorf("%s: not CREATE TABLE statements PostgreSQL or MySQL parses: %v (PostgreSQL); %v (MySQL)", file, pgErr, myErr)
}

// unreadable returns an error naming the first statement of src that
// neither PostgreSQL's parser nor Vitess's strict MySQL parser reads, at
// the statement's first line, or, when each is read by one of them but
// not all by the same, the file's mixing of the dialects at the later of
// the first statement each cannot read; nil otherwise (a file with no
// CREATE TABLE).
func unreadable(file, src string) error {
	p, err := mysqlParser()
	if err != nil {
		return err
	}
	pieces, offs, err := splitScript(p, src)
	if err != nil {
		// The splitter fails on an unterminated quote or comment: the
		// whole tail is the statement neither reads.
		return shardkey.Errorf(file, 1, "", "neither PostgreSQL nor MySQL parses the file: %v", err)
	}
	myLine, pgLine := 0, 0 // the first statement only PostgreSQL reads, only MySQL reads
	var myFirst, pgFirst error
	for i, piece := range pieces {
		_, myErr := p.ParseStrictDDL(piece)
		_, pgErr := pg_query.Parse(blankMetaCommands(piece))
		line := stmtLine(src, offs[i])
		if myErr != nil && pgErr != nil && !definesTables(piece) {
			continue // skipped with a warning by the reader
		}
		switch {
		case myErr != nil && pgErr != nil:
			return shardkey.Errorf(file, line, "", "statement neither PostgreSQL nor MySQL parses: %v (PostgreSQL); %v (MySQL)", pgErr, myErr)
		case myErr != nil && myLine == 0:
			myLine, myFirst = line, myErr
		case pgErr != nil && pgLine == 0:
			pgLine, pgFirst = line, pgErr
		}
	}
	if myLine > 0 && pgLine > 0 {
		// Each statement is one dialect's, but the file mixes them.
		return shardkey.Errorf(file, max(myLine, pgLine), "", "the file mixes dialects: the statement at line %d only PostgreSQL parses (MySQL: %v), the one at line %d only MySQL (PostgreSQL: %v); write one dialect", myLine, myFirst, pgLine, pgFirst)
	}
	return nil
}

func mysqlParser() (*sqlparser.Parser, error) {
	return sqlparser.New(sqlparser.Options{MySQLServerVersion: "8.0.40"})
}

// splitPieces splits src into statements at the semicolons MySQL's
// tokenizer sees, with each piece's byte offset in src.
func splitPieces(p *sqlparser.Parser, src string) ([]string, []int, error) {
	all, err := p.SplitStatementToPieces(src)
	if err != nil {
		return nil, nil, err
	}
	var pieces []string
	var offs []int
	at := 0
	for _, piece := range all {
		// Each piece is a substring of src, in order.
		i := strings.Index(src[at:], piece)
		if i < 0 {
			i = 0
		}
		off := at + i
		at = off + len(piece)
		if strings.TrimSpace(piece) == "" {
			continue
		}
		pieces = append(pieces, piece)
		offs = append(offs, off)
	}
	return pieces, offs, nil
}

// splitScript splits a MySQL script into statements as the mysql client
// does: at the semicolons MySQL's tokenizer sees, and, after a client
// DELIMITER command (mysqldump writes "DELIMITER ;;" around triggers and
// routines), at the delimiter it sets. The DELIMITER lines are the
// client's, not statements. Offsets are bytes in src.
func splitScript(p *sqlparser.Parser, src string) ([]string, []int, error) {
	var pieces []string
	var offs []int
	delim := ";"
	seg := 0 // start of the text under delim
	flush := func(end int) error {
		text := src[seg:end]
		if delim == ";" {
			ps, os, err := splitPieces(p, text)
			if err != nil {
				return err
			}
			for i := range ps {
				pieces, offs = append(pieces, ps[i]), append(offs, seg+os[i])
			}
			return nil
		}
		at := 0
		for at < len(text) {
			j := strings.Index(text[at:], delim)
			stop := len(text)
			if j >= 0 {
				stop = at + j
			}
			if piece := text[at:stop]; strings.TrimSpace(piece) != "" {
				pieces, offs = append(pieces, piece), append(offs, seg+at)
			}
			if j < 0 {
				break
			}
			at = stop + len(delim)
		}
		return nil
	}
	for off := 0; off < len(src); {
		end := strings.IndexByte(src[off:], '\n')
		next := len(src)
		if end >= 0 {
			next = off + end + 1
		}
		if f := strings.Fields(src[off:next]); len(f) == 2 && strings.EqualFold(f[0], "DELIMITER") {
			if err := flush(off); err != nil {
				return nil, nil, err
			}
			delim, seg = f[1], next
		}
		off = next
	}
	if err := flush(len(src)); err != nil {
		return nil, nil, err
	}
	return pieces, offs, nil
}

// blankMetaCommands returns src with each psql meta-command line (one
// whose first non-blank character is a backslash: pg_dump writes
// \connect, and \restrict since PostgreSQL 17.6) turned to spaces, so that
// the server's parser reads the rest at the same offsets.
func blankMetaCommands(src string) string {
	if !strings.Contains(src, "\\") {
		return src
	}
	b := []byte(src)
	for off := 0; off < len(b); {
		end := len(b)
		if j := strings.IndexByte(src[off:], '\n'); j >= 0 {
			end = off + j
		}
		if t := strings.TrimLeft(src[off:end], " \t"); strings.HasPrefix(t, "\\") {
			for i := off; i < end; i++ {
				b[i] = ' '
			}
		}
		off = end + 1
	}
	return string(b)
}

// definesTables reports whether a statement is one that shapes the
// catalog (CREATE [TEMPORARY] TABLE, ALTER TABLE, CREATE [UNIQUE] INDEX):
// such a statement no parser reads is an error, since skipping it would
// lose columns or keys; any other (a trigger, a routine, a view, a
// client's SET) is skipped with a warning.
func definesTables(stmt string) bool {
	w := strings.Fields(strings.ToUpper(stripLeadingComments(stmt)))
	if len(w) > 0 && w[0] == "CREATE" {
		w = w[1:]
		if len(w) > 0 && (w[0] == "TEMPORARY" || w[0] == "UNIQUE" || w[0] == "OR") {
			w = w[1:]
		}
		return len(w) > 0 && (w[0] == "TABLE" || w[0] == "INDEX")
	}
	return len(w) > 1 && w[0] == "ALTER" && w[1] == "TABLE"
}

// stripLeadingComments returns stmt past its leading blanks and comments.
func stripLeadingComments(stmt string) string { return stmt[pastComments(stmt, 0):] }

var mysqlVersioned = regexp.MustCompile(`/\*!\d*|\*/`)

// skipped warns that the statement at line, which defines no table, was
// not read (err is the parser's).
func (c *catBuilder) skipped(line int, stmt string, err error) {
	// mysqldump wraps a trigger's words in versioned comments:
	// /*!50003 CREATE*/ /*!50017 DEFINER=...*/ /*!50003 TRIGGER ...
	first := strings.Fields(mysqlVersioned.ReplaceAllString(stripLeadingComments(stmt), " "))
	if len(first) > 2 && strings.HasPrefix(strings.ToUpper(first[1]), "DEFINER=") {
		first = append(first[:1], first[2:]...)
	}
	what := "statement"
	if len(first) > 0 {
		what = strings.ToUpper(first[0])
		if len(first) > 1 {
			what += " " + strings.ToUpper(first[1])
		}
		what += " statement"
	}
	c.warns = append(c.warns, shardkey.Errorf(c.file, line, "", "%s skipped: MySQL's parser does not read it (%v), and it defines no table", what, err))
}

// stmtLine returns the 1-based line of src on which the statement at byte
// offset off begins: its first token, past blanks and comments (-- ...,
// # ..., /* ... */).
func stmtLine(src string, off int) int {
	off = min(max(off, 0), len(src))
	if i := pastComments(src, off); i < len(src) {
		return 1 + strings.Count(src[:i], "\n")
	}
	return 1 + strings.Count(src[:off], "\n")
}

// pastComments returns the offset in src of the first token at or after
// off, past blanks and comments (-- ..., # ..., /* ... */ but not MySQL's
// versioned /*! ... */, which holds statement text); len(src) if none.
func pastComments(src string, i int) int {
	for i < len(src) {
		switch {
		case src[i] == ' ' || src[i] == '\t' || src[i] == '\n' || src[i] == '\r' || src[i] == '\f':
			i++
		case strings.HasPrefix(src[i:], "--") || src[i] == '#':
			j := strings.IndexByte(src[i:], '\n')
			if j < 0 {
				return len(src)
			}
			i += j + 1
		case strings.HasPrefix(src[i:], "/*") && !strings.HasPrefix(src[i:], "/*!"):
			j := strings.Index(src[i+2:], "*/")
			if j < 0 {
				return len(src)
			}
			i += j + 4
		default:
			return i
		}
	}
	return i
}

// table returns the table named name, adding an empty one when the
// catalog has none (an ALTER TABLE of a table not created before).
func (c *catBuilder) table(name string) *shardkey.TableInfo {
	if t := c.cat.Table(name); t != nil {
		return t
	}
	t := &shardkey.TableInfo{Name: name, RowEstimate: -1}
	c.cat.Tables = append(c.cat.Tables, t)
	return t
}

// create returns the table a CREATE TABLE statement at line defines, or
// nil when the file created it before: the first definition is kept (the
// database would refuse the second) and a warning names both lines.
func (c *catBuilder) create(name string, line int) *shardkey.TableInfo {
	if first, ok := c.created[name]; ok {
		c.warns = append(c.warns, shardkey.Errorf(c.file, line, "", "CREATE TABLE %s again (first at line %d): kept the first definition, ignored this one", name, first))
		return nil
	}
	if c.created == nil {
		c.created = map[string]int{}
	}
	c.created[name] = line
	return c.table(name)
}

// foreignKey adds fk to t, declared by the statement at line.
func (c *catBuilder) foreignKey(t *shardkey.TableInfo, fk shardkey.ForeignKey, line int) {
	t.ForeignKeys = append(t.ForeignKeys, fk)
	c.fks = append(c.fks, fkAt{t.Name, fk, line})
}

// finish returns the warnings, in line order: those found while reading
// and one for each foreign key whose referenced table the file does not
// create.
func (c *catBuilder) finish() []error {
	for _, f := range c.fks {
		if _, ok := c.created[f.fk.RefTable]; !ok {
			c.warns = append(c.warns, shardkey.Errorf(c.file, f.line, "", "foreign key %s(%s) references table %s, which the schema does not create: the reference is kept, but nothing is known of %s",
				f.table, strings.Join(f.fk.Columns, ", "), f.fk.RefTable, f.fk.RefTable))
		}
	}
	slices.SortStableFunc(c.warns, func(a, b error) int {
		return cmp.Compare(a.(*shardkey.InputError).Line, b.(*shardkey.InputError).Line)
	})
	return c.warns
}

type fkAt struct {
	table string
	fk    shardkey.ForeignKey
	line  int
}

// catBuilder fills cat from the statements of file (whose text is src),
// keeping the warnings.
type catBuilder struct {
	cat     *shardkey.Catalog
	file    string
	src     string
	created map[string]int // table name: line of its CREATE TABLE
	fks     []fkAt
	warns   []error
}

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

func readPGSchema(b *catBuilder) error {
	tree, err := pg_query.Parse(blankMetaCommands(b.src))
	if err != nil {
		return err
	}
	cat := b.cat
	line := 0
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
			b.foreignKey(t, fk, line)
		}
	}
	for _, raw := range tree.Stmts {
		line = stmtLine(b.src, int(raw.StmtLocation))
		switch {
		case raw.Stmt.GetCreateStmt() != nil:
			cs := raw.Stmt.GetCreateStmt()
			t := b.create(cs.Relation.Relname, line)
			if t == nil {
				continue
			}
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

func readMySQLSchema(b *catBuilder) error {
	p, err := mysqlParser()
	if err != nil {
		return err
	}
	pieces, offs, err := splitScript(p, b.src)
	if err != nil {
		return err
	}
	cat := b.cat
	cols := func(cs sqlparser.Columns) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c.String())
		}
		return out
	}
	for i, piece := range pieces {
		line := stmtLine(b.src, offs[i])
		st, err := p.ParseStrictDDL(piece)
		if err != nil {
			if definesTables(piece) {
				return fmt.Errorf("line %d: %v", line, err)
			}
			b.skipped(line, piece, err)
			continue
		}
		switch s := st.(type) {
		case *sqlparser.CreateTable:
			if s.TableSpec == nil {
				continue
			}
			t := b.create(s.Table.Name.String(), line)
			if t == nil {
				continue
			}
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
						b.foreignKey(t, shardkey.ForeignKey{Columns: []string{cd.Name.String()}, RefTable: r.ReferencedTable.Name.String(), RefColumns: cols(r.ReferencedColumns)}, line)
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
					b.foreignKey(t, shardkey.ForeignKey{Columns: cols(fk.Source), RefTable: fk.ReferenceDefinition.ReferencedTable.Name.String(), RefColumns: cols(fk.ReferenceDefinition.ReferencedColumns)}, line)
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
					b.foreignKey(t, shardkey.ForeignKey{Columns: cols(fk.Source), RefTable: fk.ReferenceDefinition.ReferencedTable.Name.String(), RefColumns: cols(fk.ReferenceDefinition.ReferencedColumns)}, line)
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
