package emit

import (
	"fmt"
	"strings"

	"github.com/shardkey/shardkey"
)

// Citus's rules for a foreign key, as create_distributed_table and
// create_reference_table check them (src/backend/distributed/commands/
// foreign_constraint.c, ErrorIfUnsupportedForeignConstraintExists):
//   - reference table to reference table: allowed;
//   - reference table to distributed table: "cannot create foreign key
//     constraint since foreign keys from reference tables to distributed
//     tables are not supported";
//   - distributed table to reference table: allowed;
//   - distributed table to distributed table: only when the two are
//     co-located ("relations are not colocated or not referencing a
//     reference table") and the key holds both distribution columns at
//     the same position ("Foreign keys are supported in two cases, either
//     in between two colocated tables including partition column in the
//     same ordinal in the both tables or from distributed to reference
//     tables");
//   - to a table that is neither (a local table): "Referenced table must
//     be a distributed table or a reference table".
// The referenced table must also exist as a Citus table before the
// referencing one is distributed: parents first.

// citusRole is how the emitted configuration makes a table: distributed
// by col (co-located with the tables whose column has the same type),
// a reference table, or left local on the coordinator.
type citusRole struct {
	ref bool
	col string // distribution column; "" for reference and local tables
	typ string // its PostgreSQL type: the co-location group
}

// citusRoles returns each placed table's role under the Citus
// configuration of plan p (unplaced tables are absent: local).
func (p *plan) citusRoles() map[string]citusRole {
	roles := map[string]citusRole{}
	for _, k := range p.keys {
		if k.kind == kindReplicate {
			roles[k.t.Name] = citusRole{ref: true}
			continue
		}
		roles[k.t.Name] = citusRole{col: k.cols[0], typ: pgType(k.types[0])}
	}
	return roles
}

// foreignKeys returns table name's declared foreign keys (--schema,
// --from), each with its referenced columns filled in from the parent's
// primary key when the declaration names none (REFERENCES parent).
func foreignKeys(w *shardkey.Workload, name string) []shardkey.ForeignKey {
	if w.Catalog == nil {
		return nil
	}
	info := w.Catalog.Table(name)
	if info == nil {
		return nil
	}
	var out []shardkey.ForeignKey
	for _, fk := range info.ForeignKeys {
		if fk.RefTable == "" || len(fk.Columns) == 0 {
			continue
		}
		if len(fk.RefColumns) == 0 {
			if pi := w.Catalog.Table(fk.RefTable); pi != nil && len(pi.PrimaryKey) == len(fk.Columns) {
				fk.RefColumns = pi.PrimaryKey
			}
		}
		out = append(out, fk)
	}
	return out
}

// fkString is a foreign key as SQL declares it.
func fkString(fk shardkey.ForeignKey) string {
	s := "FOREIGN KEY (" + strings.Join(fk.Columns, ", ") + ") REFERENCES " + fk.RefTable
	if len(fk.RefColumns) > 0 {
		s += " (" + strings.Join(fk.RefColumns, ", ") + ")"
	}
	return s
}

// citusTable returns the placed table a foreign key names (the catalog
// may spell it in another case), or "" when the design does not place it.
func citusTable(roles map[string]citusRole, name string) string {
	if _, ok := roles[name]; ok {
		return name
	}
	for n := range roles {
		if strings.EqualFold(n, name) {
			return n
		}
	}
	return ""
}

// citusFKProblem returns why Citus rejects foreign key fk of table child
// under roles, with the ways out, or "" when Citus accepts it. colocated
// reports whether an accepted key joins two distributed tables (the child
// then co-locates with the parent).
func citusFKProblem(roles map[string]citusRole, child string, fk shardkey.ForeignKey) (problem string, colocated bool) {
	cr, ok := roles[child]
	if !ok {
		return "", false // a local table: Citus does not check it here
	}
	parent := citusTable(roles, fk.RefTable)
	head := fmt.Sprintf("%s: %s: Citus rejects this foreign key", child, fkString(fk))
	if parent == "" {
		if cr.ref {
			return "", false
		}
		return fmt.Sprintf("%s (foreign_constraint.c: \"Referenced table must be a distributed table or a reference table\"): the design leaves %s a local table on the coordinator, so create_distributed_table(%s) fails while the key exists; ways out: make %s a reference table (%s:replicate) or distribute it co-located with %s, or drop the foreign key and enforce it in the application",
			head, fk.RefTable, sqlString(child), fk.RefTable, fk.RefTable, child), false
	}
	pr := roles[parent]
	switch {
	case cr.ref && pr.ref, !cr.ref && pr.ref:
		return "", false
	case cr.ref && !pr.ref:
		return fmt.Sprintf("%s (foreign_constraint.c: \"foreign keys from reference tables to distributed tables are not supported\"): %s is a reference table and %s is distributed by %s; ways out: make %s a reference table too, or distribute %s co-located with %s (carrying %s and including it in the key), or drop the foreign key and enforce it in the application",
			head, child, parent, pr.col, parent, child, parent, pr.col), false
	}
	// Both distributed. In this configuration tables co-locate exactly
	// when their distribution columns have the same type.
	onDist := false
	if len(fk.RefColumns) == len(fk.Columns) {
		for i := range fk.Columns {
			if strings.EqualFold(fk.Columns[i], cr.col) && strings.EqualFold(fk.RefColumns[i], pr.col) {
				onDist = true
			}
		}
	}
	if cr.typ == pr.typ && onDist {
		return "", true
	}
	why := fmt.Sprintf("foreign_constraint.c: \"Foreign keys are supported in two cases, either in between two colocated tables including partition column in the same ordinal in the both tables or from distributed to reference tables\": the key does not pair %s.%s with %s.%s, the distribution columns", child, cr.col, parent, pr.col)
	if cr.typ != pr.typ {
		// Co-location needs distribution columns of the same type.
		why = fmt.Sprintf("foreign_constraint.c: \"relations are not colocated or not referencing a reference table\": %s is distributed by %s (%s) and %s by %s (%s), which Citus cannot co-locate", child, cr.col, cr.typ, parent, pr.col, pr.typ)
		if !onDist {
			why += ", and the key does not pair the two distribution columns"
		}
	}
	// The way to keep it: the child carries the parent's distribution
	// column, is distributed by it, and the key includes it on both sides.
	carried := []string{pr.col}
	refd := []string{pr.col}
	for i, c := range fk.Columns {
		if i < len(fk.RefColumns) && strings.EqualFold(fk.RefColumns[i], pr.col) {
			continue
		}
		carried = append(carried, c)
		if i < len(fk.RefColumns) {
			refd = append(refd, fk.RefColumns[i])
		}
	}
	keep := fmt.Sprintf("carry %s into %s, distribute %s by it (co-located with %s) and declare", pr.col, child, child, parent)
	if strings.EqualFold(cr.col, pr.col) && cr.typ == pr.typ {
		keep = fmt.Sprintf("%s is already distributed by %s, co-located with %s: include it in the key,", child, cr.col, parent)
	}
	return fmt.Sprintf("%s (%s); create_distributed_table(%s) fails while the key exists; ways out: %s FOREIGN KEY (%s) REFERENCES %s (%s) (with a unique key on those columns of %s); or drop the foreign key and enforce it in the application; or make %s a reference table (%s:replicate)",
		head, why, sqlString(child), keep, strings.Join(carried, ", "), parent, strings.Join(refd, ", "), parent, parent, parent), false
}

// citusOrder returns the placed tables in the order Citus needs them:
// reference tables first, then distributed tables, each after the tables
// its foreign keys reference (parents first), workload order otherwise;
// tables in a cycle of foreign keys keep workload order.
func (p *plan) citusOrder() []*tableKey {
	var refs, dist []*tableKey
	for _, k := range p.keys {
		if k.kind == kindReplicate {
			refs = append(refs, k)
		} else {
			dist = append(dist, k)
		}
	}
	roles := p.citusRoles()
	return append(p.fkOrder(refs, roles), p.fkOrder(dist, roles)...)
}

// fkOrder orders keys so that each comes after the keys (in the same
// list) its foreign keys reference: repeatedly the first, in list order,
// whose parents are all out; in a cycle, the first left.
func (p *plan) fkOrder(keys []*tableKey, roles map[string]citusRole) []*tableKey {
	in := map[string]bool{}
	for _, k := range keys {
		in[k.t.Name] = true
	}
	done := map[string]bool{}
	var out []*tableKey
	for len(out) < len(keys) {
		pick := -1
		for i, k := range keys {
			if done[k.t.Name] {
				continue
			}
			if pick < 0 {
				pick = i // a cycle: the first left
			}
			ready := true
			for _, fk := range foreignKeys(p.w, k.t.Name) {
				par := citusTable(roles, fk.RefTable)
				if par != "" && par != k.t.Name && in[par] && !done[par] {
					ready = false
					break
				}
			}
			if ready {
				pick = i
				break
			}
		}
		done[keys[pick].t.Name] = true
		out = append(out, keys[pick])
	}
	return out
}

// CitusForeignKeyProblems returns, for design d under Citus, each
// declared foreign key (--schema, --from) Citus would reject, with why and
// the ways out: what --emit citus warns about. Nil when the workload has
// no catalog or the design cannot be resolved.
func CitusForeignKeyProblems(w *shardkey.Workload, d *shardkey.Design) []string {
	p, err := newPlan(w, d, Options{})
	if err != nil {
		return nil
	}
	roles := p.citusRoles()
	var out []string
	for _, k := range p.keys {
		for _, fk := range foreignKeys(w, k.t.Name) {
			if msg, _ := citusFKProblem(roles, k.t.Name, fk); msg != "" {
				out = append(out, msg)
			}
		}
	}
	return out
}
