package emit

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// pgIdent returns name as PostgreSQL's quote_identifier writes an
// identifier (src/backend/utils/adt/ruleutils.c): as is when it is all
// lower-case letters, digits and underscores, starts with a letter or an
// underscore, and is no keyword but an unreserved one (the keyword kind
// from PostgreSQL's own scanner, pg_query.Scan); else in double quotes with
// each " doubled. An unquoted name would be folded to lower case or fail
// to parse ("user", "Orders", "user-data"). CockroachDB reads identifiers
// by the same rules.
func pgIdent(name string) string {
	safe := name != "" && (name[0] >= 'a' && name[0] <= 'z' || name[0] == '_')
	for i := 0; safe && i < len(name); i++ {
		c := name[i]
		safe = c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_'
	}
	if safe {
		res, err := pg_query.Scan(name)
		safe = err == nil && len(res.Tokens) == 1 &&
			(res.Tokens[0].KeywordKind == pg_query.KeywordKind_NO_KEYWORD || res.Tokens[0].KeywordKind == pg_query.KeywordKind_UNRESERVED_KEYWORD)
	}
	if safe {
		return name
	}
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

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
