package emit

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/partition"
)

// Citus returns SQL that applies design d on Citus: SET citus.shard_count,
// then create_reference_table for each TABLE:replicate, then
// create_distributed_table on each other placed table's key's first
// column, parents before the tables whose foreign keys reference them
// (workload order otherwise), co-located (colocate_with) with its foreign
// key's parent, or else the first table distributed by a column of the
// same type; a warning before each statement Citus would fail on a
// declared foreign key (citusFKProblem); and
// isolate_tenant_to_new_shard(..., 'CASCADE') for
// each isolated value, once per co-location group (CASCADE isolates it in
// every co-located table). Citus distributes by one column and by hash
// only, so compound keys use their first column and range keys are
// hash-distributed; comments say so, and what salt and directory keys
// would need.
func Citus(w *shardkey.Workload, d *shardkey.Design, o Options) (string, error) {
	p, err := newPlan(w, d, o)
	if err != nil {
		return "", err
	}
	if err := p.noMongoHashed("Citus"); err != nil {
		return "", err
	}
	// With citus(shard_count=S) the design was scored on S shards placed
	// round-robin over the p.shards nodes: the configuration makes those
	// S shards, not one per node.
	count, on := p.shards, ""
	if s := partition.CitusShards(o.Engine); s > 0 {
		count, on = s, fmt.Sprintf(" over %d worker nodes (engine %s)", p.shards, o.Engine)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "-- shardkey design %q for workload %s on Citus, %d shards%s.\n", d.Text, w.Name, count, on)
	if rk := p.rangeKeys(); len(rk) > 0 {
		// create_distributed_table takes 'hash' or 'append' (Citus's
		// documented distribution methods); range shards need their
		// intervals written into pg_dist_shard by hand, and Citus does
		// not co-locate them, so this file hash-distributes.
		msg := p.mismatch("Citus distributes by hash (create_distributed_table), not by ranges, so this configuration hash-distributes the range-keyed tables (%s) by their key's first column: the placement Citus gets is not the range placement shardkey scored", strings.Join(rk, ", "))
		fmt.Fprintf(&b, "-- WARNING: %s.\n", msg)
	}
	fmt.Fprintf(&b, "SET citus.shard_count = %d;\n\n", count)
	type group struct {
		first string
		hot   []shardkey.Value
		seen  map[shardkey.Value]bool
		col   string
	}
	groups := map[string]*group{} // by distribution column type
	var order []string
	roles := p.citusRoles()
	// fkWarn writes a warning before the statement that fails on each
	// foreign key of table name Citus rejects; colocated returns the
	// distributed parent an accepted key co-locates name with, or "".
	fkWarn := func(name string) (colocated string) {
		for _, fk := range foreignKeys(w, name) {
			msg, co := citusFKProblem(roles, name, fk)
			if msg != "" {
				fmt.Fprintf(&b, "-- WARNING: %s.\n", msg)
				if p.o.Warn != nil {
					p.o.Warn(msg)
				}
			}
			if par := citusTable(roles, fk.RefTable); co && colocated == "" && par != name {
				colocated = par
			}
		}
		return colocated
	}
	keys := p.citusOrder()
	if len(keys) > 0 && keys[0].kind == kindReplicate {
		b.WriteString("-- Reference tables first (a copy on every node; writes touch every node): distributed tables' foreign keys may reference them.\n")
	}
	for i, k := range keys {
		name := k.t.Name
		if k.kind == kindReplicate {
			fkWarn(name)
			fmt.Fprintf(&b, "SELECT create_reference_table(%s);\n", regclass(name))
			if i+1 < len(keys) && keys[i+1].kind != kindReplicate {
				b.WriteString("\n")
			}
			continue
		}
		col := k.cols[0]
		if len(k.cols) > 1 {
			fmt.Fprintf(&b, "-- %s: %s: Citus distributes by one column; distributing by %s, the first.\n", name, k.expr, col)
		}
		switch k.kind {
		case kindRange:
			fmt.Fprintf(&b, "-- %s: %s: Citus distributes by hash, so range reads on %s touch every shard; PostgreSQL partitioning of each shard by %s (create_time_partitions for time) keeps them pruned within shards.\n", name, k.expr, col, col)
		case kindDirectory:
			fmt.Fprintf(&b, "-- %s: directory(%s, %s): Citus has no value-to-shard map; isolate_tenant_to_new_shard and citus_move_shard_placement place listed values by hand.\n", name, col, k.file)
		}
		if k.saltTop > 0 {
			fmt.Fprintf(&b, "-- %s: salt: Citus has no salting; distribute by a column holding %s plus a salt (0..%d) for the hot values (%s), and read those values from every salt.\n", name, col, k.saltK-1, valueList(k.hot))
		}
		for _, uk := range uniqueWithout(w, name, col) {
			// Citus refuses them on a hash-distributed table (commands/
			// table.c, ErrorIfUnsupportedConstraint; its regression test
			// multi_create_table_constraints): each shard could enforce
			// only its own rows' uniqueness.
			msg := fmt.Sprintf("%s: Citus rejects create_distributed_table while %v does not include the distribution column %s (a shard enforces uniqueness of its own rows only): extend it to (%s) before distributing (then unique within one %s value only), or drop it and keep (%s) unique in a table distributed by it, written in the same transaction as %s", name, uk, col, strings.Join(append([]string{col}, uk.cols...), ", "), col, strings.Join(uk.cols, ", "), name)
			fmt.Fprintf(&b, "-- WARNING: %s.\n", msg)
			if p.o.Warn != nil {
				p.o.Warn(msg)
			}
		}
		parent := fkWarn(name)
		typ := pgType(k.types[0])
		g := groups[typ]
		switch {
		case g == nil:
			g = &group{first: name, seen: map[shardkey.Value]bool{}, col: col}
			groups[typ] = g
			order = append(order, typ)
			fmt.Fprintf(&b, "SELECT create_distributed_table(%s, %s);\n", regclass(name), sqlString(col))
		case parent != "":
			// Its foreign key's parent: the same co-location group.
			fmt.Fprintf(&b, "SELECT create_distributed_table(%s, %s, colocate_with => %s);\n", regclass(name), sqlString(col), regclass(parent))
		default:
			fmt.Fprintf(&b, "SELECT create_distributed_table(%s, %s, colocate_with => %s);\n", regclass(name), sqlString(col), regclass(g.first))
		}
		if k.isolate > 0 {
			for _, v := range k.hot {
				if !g.seen[v.Canonical()] {
					g.seen[v.Canonical()] = true
					g.hot = append(g.hot, v)
				}
			}
		}
	}
	for _, typ := range order {
		g := groups[typ]
		if len(g.hot) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n-- Isolate the hottest %s: each gets a shard of its own in %s and, by CASCADE, in every table co-located with it.\n", plural(len(g.hot), g.col+" value"), g.first)
		b.WriteString("-- The new shards stay on their node; citus_move_shard_placement moves one to a node of its own.\n")
		for _, v := range g.hot {
			fmt.Fprintf(&b, "SELECT isolate_tenant_to_new_shard(%s, %s, 'CASCADE');\n", regclass(g.first), sqlLiteral(v))
		}
	}
	for _, t := range p.unplaced {
		fmt.Fprintf(&b, "\n-- %s: the design does not place it: it stays a local table on the coordinator.\n", t)
	}
	return b.String(), nil
}

// pgType returns the PostgreSQL type a column of type t has, which decides
// Citus co-location (tables co-locate only with the same column type).
func pgType(t shardkey.Type) string {
	switch t {
	case shardkey.Int16:
		return "smallint"
	case shardkey.Int32:
		return "integer"
	case shardkey.Int64, shardkey.Uint64:
		return "bigint"
	case shardkey.Float32:
		return "real"
	case shardkey.Float64:
		return "double precision"
	case shardkey.Text:
		return "text"
	case shardkey.Bytes:
		return "bytea"
	case shardkey.UUID:
		return "uuid"
	case shardkey.Timestamp:
		return "timestamptz"
	case shardkey.ObjectID:
		return "bytea"
	case shardkey.Date:
		return "date"
	case shardkey.Bool:
		return "boolean"
	case shardkey.ExtJSON:
		return "jsonb"
	}
	return t.String()
}

// sqlString returns s as a SQL string literal.
func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// sqlLiteral returns v as a PostgreSQL literal: integers bare, the rest as
// typed string literals.
func sqlLiteral(v shardkey.Value) string {
	switch v.Type {
	case shardkey.Null:
		return "NULL"
	case shardkey.Int16, shardkey.Int32, shardkey.Int64, shardkey.Uint64:
		return v.String()
	case shardkey.Bytes:
		return sqlString(`\x`+v.String()) + "::bytea"
	case shardkey.Timestamp:
		return sqlString(v.String()) + "::timestamptz"
	case shardkey.UUID:
		return sqlString(v.String()) + "::uuid"
	case shardkey.ObjectID:
		return sqlString(`\x`+v.String()) + "::bytea"
	case shardkey.Date:
		return sqlString(string(partitionDate(v))) + "::date"
	case shardkey.Bool:
		return v.String()
	case shardkey.Float32, shardkey.Float64:
		return sqlString(v.String()) + "::" + pgType(v.Type)
	}
	return sqlString(v.String())
}

// partitionDate is a Date's day in UTC, 2006-01-02, as the SQL engines
// take a date (a SQL DATE).
func partitionDate(v shardkey.Value) []byte {
	days := v.Int / 86400000
	if v.Int%86400000 < 0 {
		days--
	}
	return time.Unix(days*86400, 0).UTC().AppendFormat(nil, "2006-01-02")
}

// uniqueKey is a declared primary or unique key: its kind as SQL writes
// it and its columns.
type uniqueKey struct {
	kind string // "PRIMARY KEY" or "UNIQUE"
	cols []string
}

func (u uniqueKey) String() string { return u.kind + " (" + strings.Join(u.cols, ", ") + ")" }

// uniqueWithout returns table name's declared primary and unique keys
// (--schema, --from) that do not include column col.
func uniqueWithout(w *shardkey.Workload, name, col string) []uniqueKey {
	if w.Catalog == nil {
		return nil
	}
	info := w.Catalog.Table(name)
	if info == nil {
		return nil
	}
	var out []uniqueKey
	if len(info.PrimaryKey) > 0 && !slices.Contains(info.PrimaryKey, col) {
		out = append(out, uniqueKey{"PRIMARY KEY", info.PrimaryKey})
	}
	for _, k := range info.UniqueKeys {
		if len(k) > 0 && !slices.Contains(k, col) {
			out = append(out, uniqueKey{"UNIQUE", k})
		}
	}
	return out
}
