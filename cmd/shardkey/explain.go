package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"

	"github.com/shardkey/shardkey/explain"
	"github.com/shardkey/shardkey/internal/buildinfo"
	"github.com/shardkey/shardkey/livedb"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/partition"
	"github.com/shardkey/shardkey/scenario"
	"github.com/shardkey/shardkey/sim"
	"github.com/shardkey/shardkey/sqllog"
	"github.com/shardkey/shardkey/workload"
)

func runExplain(e *env, args []string) error {
	fs := flag.NewFlagSet("explain", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	var c common
	c.register(fs, true)
	fs.Lookup("format").Usage = "output `format`: table or json"
	dialect := fs.String("dialect", "", "SQL `dialect`: mysql or postgresql (default: detected from the statement)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: shardkey explain [inputs | chat|orders|social|workspace] -k KEY [--dialect mysql|postgresql] "SQL"

Shows which shards one statement touches under KEY, and why, in the manner
of vtexplain. Inputs (--workload, --rows, --log, ...) give the tables, their
columns and types, and the row sample that range and isolate keys need;
without inputs the statement's own tables and columns are used. With
--schema FILE.sql, a statement on a table the schema does not declare (and
no other input has) is an error naming the table and the file (exit 1):
a misspelt name is not routed as if it existed.

--format json prints {"shards": [0-based indices], "scatter": bool,
"reason": "...", "route": "single|multi|scatter|none|any_shard"} (and
"any_shard": true, "warnings": [...] when they apply). A statement
touching several tables (a join, a subquery, UNION arms) or rows (a
multi-row INSERT) lists the union of their shards. The routing rules
(boolean structure, statements matching no row, pushdown, joins, hints)
and the engine sources they follow are in docs/own-database.md, section 4.

Examples:
  shardkey explain -k 'hash(user_id)' "SELECT * FROM posts WHERE user_id = 42"
  shardkey explain -k 'hash(user_id)' --shards 16 --format json \
      "SELECT * FROM posts WHERE user_id IN (1, 2, 3)"
  shardkey explain --workload social.yaml -k 'posts:hash(user_id); users:replicate' \
      "SELECT p.* FROM posts p JOIN users u ON u.id = p.user_id WHERE p.user_id = 7"

Flags:
`)
		fs.PrintDefaults()
	}
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	c.formats = []string{"table", "json"}
	if err := c.validate(fs); err != nil {
		return err
	}
	if len(pos) == 0 {
		return usageErr("give the SQL statement to explain, e.g. shardkey explain -k 'hash(user_id)' \"SELECT * FROM posts WHERE user_id = 42\"")
	}
	var spec *scenario.Spec
	if len(pos) == 2 && slices.Contains(scenario.Builtins(), pos[0]) {
		// explain NAME -k KEY "SQL": a built-in scenario's tables, as
		// score NAME and advise NAME take it.
		if spec, err = builtinArg(&c, pos[:1], "the statement goes last"); err != nil {
			return err
		}
		pos = pos[1:]
	}
	if len(pos) > 1 {
		return usageErr("give the statement as one argument, quoted (got %d arguments): shardkey explain [NAME] -k KEY \"SELECT ...\" (NAME a built-in scenario: %s)", len(pos), strings.Join(scenario.Builtins(), ", "))
	}
	sql := pos[0]
	if len(c.keys) != 1 {
		return usageErr("give one key with -k (got %d)", len(c.keys))
	}
	d, err := sqllog.ParseDialect(*dialect)
	if err != nil {
		return usageErr("--dialect: %v", err)
	}
	var st *sqllog.Statement
	if d == 0 && (strings.HasPrefix(c.engine, "vitess") || c.vindexes != nil) {
		// vtgate speaks MySQL's dialect: a statement both parsers accept
		// (X'61', "a") is read as MySQL reads it; one only PostgreSQL's
		// parser accepts is still read so, by detection below.
		if st, err = sqllog.ParseStatement(sql, sqllog.MySQL); err == nil {
			st.How = "Vitess (vtgate) speaks MySQL's dialect; --dialect postgresql to change"
		}
	}
	if st == nil {
		if st, err = sqllog.ParseStatement(sql, d); err != nil {
			return fmt.Errorf("parsing the statement: %w", err)
		}
	}
	types, err := columnTypes(c.colTypes)
	if err != nil {
		return err
	}
	var w *shardkey.Workload
	var opts sim.Options
	var inputWarns []string
	if c.hasInputs() || spec != nil {
		l, err := c.load(e, spec)
		if err != nil {
			return err
		}
		w, opts = l.w, l.opts
		// The inputs' warnings (statements a log could not parse, ...)
		// go to standard error and into the output, as score's do.
		for _, wn := range w.Warnings {
			fmt.Fprintf(e.stderr, "warning: %v\n", wn)
			inputWarns = append(inputWarns, wn.Error())
		}
	} else {
		w = &shardkey.Workload{Name: "the statement", Seed: c.seed, Shards: c.shards}
		if w.Shards == 0 {
			w.Shards = 8
		}
		if c.schema != "" {
			// The schema alone: the statement's tables take their
			// columns in declared order from it (INSERT without a column
			// list, SELECT *).
			if err := workload.CheckFile("--schema", c.schema, c.schema); err != nil {
				return err
			}
			cat, warns, err := livedb.ReadSchema(c.schema)
			if err != nil {
				return err
			}
			// Its warnings (a table created twice, a foreign key to a
			// table it lacks) go to standard error and into the output.
			for _, wn := range warns {
				fmt.Fprintf(e.stderr, "warning: %v\n", wn)
				inputWarns = append(inputWarns, wn.Error())
			}
			w.Catalog = cat
		}
		eng, err := partition.Lookup(c.engine)
		if err != nil {
			return usageErr("--engine: %v", err)
		}
		opts = sim.Options{Shards: w.Shards, Engine: eng, Workers: c.workers, Vindexes: c.vindexes}
	}
	design, err := shardkey.ParseDesign(c.keys[0])
	if err != nil {
		return usageErr("-k: %v", err)
	}
	rt, scheme, err := explain.Statement(st, w, design, explain.Options{Sim: opts, Types: types, Inputs: c.hasInputs() || spec != nil, Schema: c.schema})
	var ke *explain.KeyError
	if errors.As(err, &ke) {
		return keyErr(ke.Err)
	}
	if err != nil {
		return err
	}
	for _, wn := range rt.Warnings {
		fmt.Fprintf(e.stderr, "warning: %v\n", wn)
	}
	if c.format == "json" {
		rt.Warnings = append(inputWarns, rt.Warnings...)
		// The design's warnings (a lookup without a row sample, ...)
		// go in warnings too, as text mode prints them.
		for _, wn := range scheme.Warnings {
			fmt.Fprintf(e.stderr, "warning: %v\n", wn)
			rt.Warnings = append(rt.Warnings, wn.Error())
		}
		// shards is null when the shards touched are known only at run
		// time: a partial list (a subquery's table on shard 0, the
		// outer read's shard unknown) or [] would read as the answer.
		// known_shards then lists those already known (IN (5, $1):
		// shard(5)'s).
		shards, known := rt.Shards, []int(nil)
		if rt.AtRunTime() {
			shards, known = nil, rt.Shards
		}
		enc := json.NewEncoder(e.stdout)
		enc.SetEscapeHTML(false) // reasons quote SQL: keep > and < readable
		return enc.Encode(struct {
			Shards []int `json:"shards"` // in Route.Shards's place, which it shadows
			sim.Route
			KnownShards []int  `json:"known_shards,omitempty"`
			Version     string `json:"version"`
		}{shards, rt, known, buildinfo.Version()})
	}
	fmt.Fprintf(e.stdout, "dialect: %s (%s)\n", st.Dialect, st.How)
	fmt.Fprintf(e.stdout, "key:     %s, %d shards, engine %s\n", design.Text, scheme.N, scheme.Engine.Name())
	switch {
	case rt.Scatter:
		fmt.Fprintf(e.stdout, "shards:  all %d (scatter-gather)\n", scheme.N)
	case rt.AnyShard:
		fmt.Fprintf(e.stdout, "shards:  any one (a copy on every shard)\n")
	case len(rt.Shards) == 0 && rt.Route == sim.RouteNone:
		fmt.Fprintf(e.stdout, "shards:  none (no row matches)\n")
	case len(rt.Shards) == 0 && rt.Route == sim.RouteSingle:
		fmt.Fprintf(e.stdout, "shards:  one, known only at run time\n")
	case len(rt.Shards) == 0 && rt.Route == sim.RouteMulti:
		fmt.Fprintf(e.stdout, "shards:  several, known only at run time\n")
	case len(rt.Shards) == 0:
		fmt.Fprintf(e.stdout, "shards:  none listed\n")
	case rt.AtRunTime():
		fmt.Fprintf(e.stdout, "shards:  %s and those of values known only at run time\n", explain.JoinInts(rt.Shards))
	default:
		fmt.Fprintf(e.stdout, "shards:  %s\n", explain.JoinInts(rt.Shards))
	}
	if len(rt.LookupShards) > 0 {
		fmt.Fprintf(e.stdout, "lookup:  %s (the lookup tables' shards this statement reads or writes)\n", explain.JoinInts(rt.LookupShards))
	}
	if rt.Route != "" {
		fmt.Fprintf(e.stdout, "route:   %s\n", rt.Route)
	}
	fmt.Fprintf(e.stdout, "reason:  %s\n", rt.Reason)
	for _, wn := range scheme.Warnings {
		fmt.Fprintf(e.stderr, "warning: %v\n", wn)
	}
	writeWarnings(e.stdout, e.warnings())
	return nil
}

// hasInputs reports whether any input flag was given.
func (c *common) hasInputs() bool {
	return c.workload != "" || len(c.rows)+len(c.queries)+len(c.txns)+len(c.logs) > 0 || c.from != ""
}

// columnTypes parses --column-type flags.
func columnTypes(flags []string) (map[string]shardkey.Type, error) {
	types := map[string]shardkey.Type{}
	for _, ct := range flags {
		col, typ, ok := strings.Cut(ct, "=")
		if !ok || col == "" {
			return nil, usageErr("--column-type %q: want COL=TYPE", ct)
		}
		t, err := shardkey.ParseType(typ)
		if err != nil {
			return nil, usageErr("--column-type %s: %v", ct, err)
		}
		types[col] = t
	}
	return types, nil
}
