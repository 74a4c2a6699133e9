// Package sqlident writes identifiers as a SQL dialect reads them back:
// quoted where an unquoted name would be folded, read as a keyword or
// fail to parse.
package sqlident

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"vitess.io/vitess/go/vt/sqlparser"
)

// PG returns name as PostgreSQL's quote_identifier writes an identifier
// (src/backend/utils/adt/ruleutils.c): as is when it is all lower-case
// letters, digits and underscores, starts with a letter or an
// underscore, and is no keyword but an unreserved one (the keyword kind
// from PostgreSQL's own scanner, pg_query.Scan); else in double quotes
// with each " doubled. An unquoted name would be folded to lower case or
// fail to parse ("user", "Orders", "user-data"). CockroachDB reads
// identifiers by the same rules.
func PG(name string) string {
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

// MySQL returns name as MySQL and MariaDB read an identifier back: in
// backticks (each ` doubled) when it is a keyword or holds a character
// other than a letter, a digit, _ or $ (or starts with a digit), else as
// is; MySQL keeps a name's case. The rule is Vitess's sqlparser's
// (ast_funcs.go formatID: its keyword table, MySQL's reserved and
// non-reserved words, all quoted).
func MySQL(name string) string {
	return sqlparser.String(sqlparser.NewIdentifierCS(name))
}
