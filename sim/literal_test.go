package sim

import (
	"testing"

	"github.com/shardkey/shardkey"
)

// TestSQLLiteral: strings in reasons read as SQL: quoted, a quote
// doubled; one holding a control character (a newline would break the
// reason's line) as PostgreSQL's escape string E'...', with \n, \t and a
// backslash doubled; numbers bare (review: 'a\nb' printed a raw newline).
func TestSQLLiteral(t *testing.T) {
	for _, c := range []struct {
		v    shardkey.Value
		want string
	}{
		{shardkey.TextValue("x"), `'x'`},
		{shardkey.TextValue("it's"), `'it''s'`},
		{shardkey.TextValue("a\nb"), `E'a\nb'`},
		{shardkey.TextValue("it's\ta\\b"), `E'it''s\ta\\b'`},
		{shardkey.TextValue("bell\x07"), `E'bell\x07'`},
		{shardkey.IntValue(42), `42`},
	} {
		if got := sqlLiteral(c.v); got != c.want {
			t.Errorf("sqlLiteral(%q) = %s; want %s", c.v.String(), got, c.want)
		}
	}
}
