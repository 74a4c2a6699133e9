package emit

import (
	"fmt"
	"strings"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/partition"
)

// CockroachDB returns DDL that applies design d on CockroachDB, whose
// tables are ordered by primary key and split into ranges automatically:
//
//   - hash(cols) where cols are unique in the sample:
//     ALTER TABLE t ALTER PRIMARY KEY USING COLUMNS (cols) USING HASH
//     WITH (bucket_count = shards), a hash-sharded primary key.
//   - hash(cols) otherwise: USING HASH would hash every primary-key column,
//     a unique one included, and scatter one key value's rows over the
//     buckets. So the bucket is a stored computed column with the
//     expression CockroachDB's own hash-sharded indexes use (per the
//     engine's generation, cockroachdb:generation=N) leading the primary
//     key (bucket, cols[, the first column that makes it unique in the
//     sample]). With no such column the ALTER PRIMARY KEY is left as a
//     comment to complete.
//   - range(cols): nothing to run when the primary key starts with cols;
//     ALTER TABLE ... SPLIT AT VALUES at the range bounds, if any. A
//     monotonic column is flagged: its inserts all go to the last range.
//   - isolated values of hash keys: SPLIT AT VALUES on both sides of the
//     value (integers only), a range of its own.
//   - TABLE:replicate: a comment (global tables, multi-region only).
//
// The bucket of a value is partition.CockroachDB's, the engine shardkey
// scores with; it is provisional until checked against a real cockroach
// (see partition.CockroachDB).
func CockroachDB(w *shardkey.Workload, d *shardkey.Design, o Options) (string, error) {
	p, err := newPlan(w, d, o)
	if err != nil {
		return "", err
	}
	if err := p.noMongoHashed("CockroachDB"); err != nil {
		return "", err
	}
	engSpec := "cockroachdb"
	if name, _, _ := strings.Cut(o.Engine, ":"); name == "cockroachdb" {
		engSpec = o.Engine
	}
	eng, err := partition.Lookup(engSpec)
	if err != nil {
		return "", err
	}
	gen := 3
	if _, opt, ok := strings.Cut(engSpec, ":generation="); ok {
		fmt.Sscan(opt, &gen)
	}
	n := p.shards
	var b strings.Builder
	hashed, ranged := false, false
	for _, k := range p.keys {
		hashed = hashed || k.kind == kindHash || k.kind == kindDirectory
		ranged = ranged || k.kind == kindRange
	}
	// A hash-sharded key's n is its bucket_count; a range key's the ranges
	// its split points cut (CockroachDB's own unit for both is a range).
	count := fmt.Sprintf("%d buckets", n)
	switch {
	case ranged && hashed:
		count = fmt.Sprintf("%d buckets (hash keys), %d ranges (range keys)", n, n)
	case ranged:
		count = fmt.Sprintf("%d ranges", n)
	}
	fmt.Fprintf(&b, "-- shardkey design %q for workload %s on CockroachDB, %s.\n", d.Text, w.Name, count)
	b.WriteString("-- New primary-key columns must be NOT NULL (ALTER TABLE ... ALTER COLUMN ... SET NOT NULL);\n")
	b.WriteString("-- ALTER PRIMARY KEY rewrites the table and keeps the old primary key as a unique index.\n")
	for _, k := range p.keys {
		name := k.t.Name
		b.WriteString("\n")
		if k.kind == kindReplicate {
			fmt.Fprintf(&b, "-- %s: replicate: CockroachDB reads every row from its range's leaseholder; in a multi-region\n", name)
			fmt.Fprintf(&b, "-- database, ALTER TABLE %s SET LOCALITY GLOBAL serves reads locally in every region.\n", pgIdent(name))
			continue
		}
		cols := strings.Join(k.cols, ", ")
		if k.kind == kindRange {
			if len(k.bounds) > 0 {
				fmt.Fprintf(&b, "-- %s: %s: the primary key must start with (%s)", name, k.expr, cols)
			} else {
				fmt.Fprintf(&b, "-- %s: %s: CockroachDB splits ranges of the primary key by size and load: nothing to run\n", name, k.expr)
				fmt.Fprintf(&b, "-- if the primary key starts with (%s)", cols)
			}
			if extra, ok := completeKey(k.t, k.cols); ok {
				fmt.Fprintf(&b, "; else ALTER TABLE %s ALTER PRIMARY KEY USING COLUMNS (%s)", pgIdent(name), pgIdents(append(k.cols, extra...)))
			}
			b.WriteString(".\n")
			if k.t.Monotonic[k.cols[0]] {
				fmt.Fprintf(&b, "-- %s is monotonic: every insert goes to the last range, a hot spot that load-based splitting\n", k.cols[0])
				fmt.Fprintf(&b, "-- cannot fix; hash(%s) (USING HASH) spreads the inserts.\n", k.cols[0])
			}
			if len(k.bounds) > 0 {
				var vals []string
				for i := range k.bounds {
					bv, err := k.boundValues(i)
					if err != nil {
						return "", fmt.Errorf("table %s: %w", name, err)
					}
					lits := make([]string, len(bv))
					for j, v := range bv {
						lits[j] = crdbLiteral(v)
					}
					vals = append(vals, "("+strings.Join(lits, ", ")+")")
				}
				fmt.Fprintf(&b, "-- The ranges shardkey scored: split at its %s, range i holding [bound i-1, bound i).\n", plural(len(k.bounds), "split point"))
				b.WriteString("-- CockroachDB's allocator, not this file, puts each range on a node (balancing range count and load),\n")
				b.WriteString("-- and may split a range further by size or load; manual split points stay until unsplit.\n")
				fmt.Fprintf(&b, "ALTER TABLE %s SPLIT AT VALUES %s;\n", pgIdent(name), strings.Join(vals, ", "))
			} else if n > 1 {
				fmt.Fprintf(&b, "-- WARNING: %s.\n", p.mismatch("%s: %s has no range boundaries (bounds=[...]): CockroachDB will split it by size and load, not at the boundaries shardkey scored", name, k.expr))
			}
			continue
		}
		if k.kind == kindDirectory {
			fmt.Fprintf(&b, "-- %s: directory(%s, %s): CockroachDB has no value-to-range map; the listed values need\n", name, k.cols[0], k.file)
			b.WriteString("-- PARTITION BY LIST with zone configurations; the rest hash as below.\n")
		}
		if k.saltTop > 0 {
			fmt.Fprintf(&b, "-- %s: salt: add a salt column (0..%d) for the hot %s values (%s) after the key columns and read those values from every salt.\n", name, k.saltK-1, k.cols[0], valueList(k.hot))
		}
		if unique(k.t, k.cols) {
			fmt.Fprintf(&b, "ALTER TABLE %s ALTER PRIMARY KEY USING COLUMNS (%s) USING HASH WITH (bucket_count = %d);\n", pgIdent(name), pgIdents(k.cols), n)
		} else {
			bucket := strings.Join(k.cols, "_") + fmt.Sprintf("_bucket_%d", n)
			fmt.Fprintf(&b, "-- %s: (%s) is not unique, and USING HASH hashes every primary-key column, which would scatter\n", name, cols)
			b.WriteString("-- one key value's rows over the buckets: the bucket is a column computed as USING HASH computes its own.\n")
			fmt.Fprintf(&b, "ALTER TABLE %s ADD COLUMN %s INT8 NOT NULL AS (%s) STORED;\n", pgIdent(name), pgIdent(bucket), crdbBucketExpr(k.cols, n, gen))
			if extra, ok := completeKey(k.t, k.cols); ok {
				fmt.Fprintf(&b, "ALTER TABLE %s ALTER PRIMARY KEY USING COLUMNS (%s);\n", pgIdent(name), pgIdents(append([]string{bucket}, append(k.cols, extra...)...)))
			} else {
				fmt.Fprintf(&b, "-- No column of %s is unique in the sample: complete the primary key.\n", name)
				fmt.Fprintf(&b, "-- ALTER TABLE %s ALTER PRIMARY KEY USING COLUMNS (%s, %s, <unique columns>);\n", pgIdent(name), pgIdent(bucket), pgIdents(k.cols))
			}
		}
		if k.isolate > 0 && len(k.hot) > 0 {
			if len(k.cols) > 1 {
				fmt.Fprintf(&b, "-- %s: isolate: split points for a compound key's first column alone are not emitted.\n", name)
			} else {
				fmt.Fprintf(&b, "-- %s: isolate the hottest %s: a range of its own each (bucket, value); CockroachDB also\n", name, plural(len(k.hot), k.cols[0]+" value"))
				b.WriteString("-- splits hot ranges by load. Pinning one to its own nodes needs PARTITION BY LIST and zone configurations.\n")
				for _, v := range k.hot {
					bk, err := eng.Point([]shardkey.Value{v})
					if err != nil {
						return "", fmt.Errorf("table %s: isolate %s=%s: %w", name, k.cols[0], v, err)
					}
					next, ok := successor(v)
					if !ok || v.Type == shardkey.Text {
						fmt.Fprintf(&b, "-- %s=%s: bucket %d; only integer values get split points here.\n", k.cols[0], v, bk%uint64(n))
						continue
					}
					fmt.Fprintf(&b, "ALTER TABLE %s SPLIT AT VALUES (%d, %s), (%d, %s);\n", pgIdent(name), bk%uint64(n), crdbLiteral(v), bk%uint64(n), crdbLiteral(next))
				}
			}
		}
	}
	for _, t := range p.unplaced {
		fmt.Fprintf(&b, "\n-- %s: the design does not place it: nothing to run.\n", t)
	}
	return b.String(), nil
}

// crdbBucketExpr returns the shard-column expression of a hash-sharded
// index on cols with n buckets, of the given generation (see
// partition.CockroachDB).
func crdbBucketExpr(cols []string, n, gen int) string {
	switch gen {
	case 1:
		parts := make([]string, len(cols))
		for i, c := range cols {
			parts[i] = fmt.Sprintf("fnv32(COALESCE(CAST(%s AS STRING), ''))", pgIdent(c))
		}
		return fmt.Sprintf("mod(%s, %d)", strings.Join(parts, " + "), n)
	case 2:
		return fmt.Sprintf("mod(fnv32(crdb_internal.datums_to_bytes(%s)), %d)", pgIdents(cols), n)
	}
	return fmt.Sprintf("mod(fnv32(md5(crdb_internal.datums_to_bytes(%s))), %d)", pgIdents(cols), n)
}

// crdbLiteral returns v as a CockroachDB SQL literal.
func crdbLiteral(v shardkey.Value) string {
	switch v.Type {
	case shardkey.Timestamp:
		return sqlString(v.String()) + "::TIMESTAMPTZ"
	case shardkey.UUID:
		return sqlString(v.String()) + "::UUID"
	case shardkey.Bytes:
		return sqlString(`\x`+v.String()) + "::BYTES"
	case shardkey.Float32, shardkey.Float64:
		return v.String()
	}
	return sqlLiteral(v)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
