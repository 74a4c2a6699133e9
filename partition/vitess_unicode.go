package partition

import (
	"bytes"
	"crypto/md5"
	"fmt"
	"sync"
	"unicode/utf8"

	"github.com/cespare/xxhash/v2"
	"vitess.io/vitess/go/mysql/collations/vindex/collate"
)

// This file holds the only import of vitess.io/vitess: the unicode_loose_*
// vindexes hash the primary weights of Vitess's vendored collator (CLDR 23,
// Unicode 6.2 root collation, go/mysql/collations/vindex/collate), whose
// tables are 5 MB of generated Go and not worth copying. That package
// pulls in nothing else of Vitess but go/hack. From
// go/vt/vtgate/vindexes/unicode.go @ v0.24.4.

var (
	vtCollateMD5 = sync.Pool{New: func() any { return collate.New(md5.New()) }}
	vtCollateXX  = sync.Pool{New: func() any { return collate.New(vtXXHashLE{xxhash.New()}) }}
)

// vtXXHashLE is Vitess's XXHashBigEndian, which despite its name sums to
// the little-endian bytes of XXH64.
type vtXXHashLE struct{ *xxhash.Digest }

func (d vtXXHashLE) Sum(b []byte) []byte {
	s := d.Sum64()
	return append(b, byte(s), byte(s>>8), byte(s>>16), byte(s>>24),
		byte(s>>32), byte(s>>40), byte(s>>48), byte(s>>56))
}

// vtUnicodeLoose appends the unicode_loose_md5 (md5) or
// unicode_loose_xxhash ksid of text to b: trailing spaces trimmed, then the
// hash of the collation key's primary weights.
func vtUnicodeLoose(b, text []byte, md5 bool) ([]byte, error) {
	if !utf8.Valid(text) {
		return nil, fmt.Errorf("vitess unicode_loose: cannot normalize string containing invalid UTF-8: %q", text)
	}
	pool := &vtCollateXX
	if md5 {
		pool = &vtCollateMD5
	}
	h := pool.Get().(*collate.Hasher)
	defer pool.Put(h)
	return append(b, h.Hash(bytes.TrimRight(text, " "))...), nil
}
