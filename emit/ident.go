package emit

import (
	"strings"

	"github.com/shardkey/shardkey/internal/sqlident"
)

// pgIdent returns name as PostgreSQL's quote_identifier writes an
// identifier (see sqlident.PG): as is when safe, else double-quoted.
func pgIdent(name string) string { return sqlident.PG(name) }

// pgIdents returns pgIdent of each name, joined by ", ".
func pgIdents(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = pgIdent(n)
	}
	return strings.Join(q, ", ")
}

// regclass returns name as a string literal for a regclass or table-name
// text argument (create_distributed_table's table_name and colocate_with,
// create_reference_table, isolate_tenant_to_new_shard): PostgreSQL reads
// such text as an identifier (regclassin, stringToQualifiedNameList), so a
// name that needs quotes is quoted inside the literal: '"user-data"'.
// A distribution column is passed as it is (Citus looks it up verbatim,
// BuildDistributionKeyFromColumnName in distribution_column.c).
func regclass(name string) string { return sqlString(pgIdent(name)) }
