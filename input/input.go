// Package input reads users' files into a shardkey.Workload: row samples
// (CSV with a header, JSONL), query samples and transaction samples in seed
// 000's JSONL formats. Every error names the file, the line and the field;
// input files are only ever opened for reading.
//
// Row files become tables; their column types are inferred from the first
// InferRows rows (integers as int64) unless Options.Types gives them. A
// column named "weight" is the row's weight, its share of requests (seed
// 000), not a key column.
//
// Query lines are {"where": {"col": value, ...}, "weight": w} with optional
// "table", "kind" (read, insert, update, delete) and "name"; a value is a
// scalar (equality), {"in": [...]}, or a range {"gte"|"gt": a, "lte"|"lt": b}.
// An update may give "set": {"col": value, ...}, the values its SET clause
// assigns (shardkey.Instance.Sets): one that assigns the key moves the row.
// Lines of the same shape (table, kind, columns and comparisons) form one
// operation whose rate is the sum of their weights (default 1 each).
//
// Transaction lines are {"writes": [{"col": value, ...}, ...]} (each write an
// insert of those values), optionally with "table" and "weight".
package input

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/shardkey/shardkey"
)

// InferRows is the number of rows column types are inferred from.
const InferRows = 1000

// Options control reading.
type Options struct {
	// Types fixes column types by name ("user_id") or table.column; they
	// override inference.
	Types map[string]shardkey.Type
	// Warn, when set, receives problems that do not stop reading (a
	// column whose type one stray value decided), each naming the file,
	// line and field.
	Warn func(error)
}

func (o Options) warn(err error) {
	if o.Warn != nil {
		o.Warn(err)
	}
}

func (o Options) typeOf(table, col string) (shardkey.Type, bool) {
	if t, ok := o.Types[table+"."+col]; ok {
		return t, true
	}
	t, ok := o.Types[col]
	return t, ok
}

// openInput opens an input file; a directory is refused here, with a
// message that says so, rather than by its first read.
func openInput(file string) (*os.File, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err == nil && st.IsDir() {
		f.Close()
		return nil, shardkey.Errorf(file, 0, "", "is a directory; give a file")
	}
	return f, nil
}

// TableName returns the table name for a --rows argument "NAME=FILE" or
// "FILE" (the file's base name without extension), and the file.
func TableName(arg string) (name, file string) {
	if n, f, ok := strings.Cut(arg, "="); ok && n != "" && !strings.ContainsAny(n, `/\`) {
		return n, f
	}
	base := filepath.Base(arg)
	return strings.TrimSuffix(base, filepath.Ext(base)), arg
}

// fastCSVMax is the largest CSV file read whole into memory and parsed in
// parallel chunks (a variable so that tests can lower it).
var fastCSVMax int64 = shardkey.MaxRowFileBytes

// ReadRows reads a row file (CSV or JSONL by extension: .csv, .tsv, .jsonl,
// .ndjson, .json; or Parquet) into a new table named name. The table holds
// the rows as typed columns; the file itself is held in memory only when it
// is a regular CSV file of at most shardkey.MaxRowFileBytes (read in
// parallel chunks); larger files and streams are read record by record. A
// line may be at most shardkey.MaxLineBytes.
func ReadRows(file, name string, o Options) (*shardkey.Table, error) {
	f, err := openInput(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var in io.Reader = &shardkey.BoundedReader{R: f, File: file, What: "a row sample file", MaxLine: shardkey.MaxLineBytes}
	switch strings.ToLower(filepath.Ext(file)) {
	case ".jsonl", ".ndjson", ".json":
		return readJSONLRows(in, file, name, o)
	case ".csv", ".tsv", ".txt", "":
		sep := byte(',')
		if strings.HasSuffix(strings.ToLower(file), ".tsv") {
			sep = '\t'
		}
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() <= fastCSVMax {
			if t, ok, err := readCSVMapped(f, file, name, sep, o); ok {
				return t, err
			}
			data := make([]byte, st.Size())
			quoted, err := readAllAt(f, data)
			if err != nil {
				return nil, shardkey.Errorf(file, 0, "", "%v", err)
			}
			if !quoted {
				return readCSVFast(data, file, name, sep, o, false)
			}
			return readCSVRows(bytes.NewReader(data), file, name, o)
		}
		return readCSVRows(in, file, name, o)
	case ".parquet":
		return readParquetRows(file, name, o)
	}
	return nil, shardkey.Errorf(file, 0, "", "unknown row file format %q (want .csv, .tsv, .jsonl or .parquet)", filepath.Ext(file))
}

// maxWeight bounds a weight, so that sums stay finite: a billion weights
// times a fan-out of a million shards is still below 1e216.
const maxWeight = shardkey.MaxRate

// checkWeight validates a row or query weight: a number from 0 to
// maxWeight.
func checkWeight(w float64) error {
	switch {
	case w != w:
		return fmt.Errorf("weight is NaN")
	case w < 0:
		return fmt.Errorf("weight %v is negative", w)
	case math.IsInf(w, 1):
		return fmt.Errorf("weight %v is not finite", w)
	case w > maxWeight:
		return fmt.Errorf("weight %v is too large (at most %g)", w, maxWeight)
	}
	return nil
}

// parseWeight reads a weight's text (surrounding spaces ignored) and
// checks it (checkWeight).
func parseWeight(s string) (float64, error) {
	w, err := weightNumber(s)
	if err != nil {
		return 0, err
	}
	return w, checkWeight(w)
}

// weightNumber reads a weight's text as a number, unchecked.
func weightNumber(s string) (float64, error) {
	if w, ok := exactFloat(s); ok {
		return w, nil
	}
	t := strings.TrimSpace(s)
	if strings.ContainsAny(t, "_xXpP") {
		// Go's literal syntax (1_000, 0x1p4), which strconv accepts and
		// no CSV or JSON writer means.
		return 0, fmt.Errorf("%q is not a number", s)
	}
	w, err := strconv.ParseFloat(t, 64)
	if errors.Is(err, strconv.ErrRange) {
		return 0, fmt.Errorf("%s is out of range (a weight is from 0 to %g)", strings.TrimSpace(s), maxWeight)
	}
	if err != nil {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	return w, nil
}

// pow10 holds the powers of ten that float64 represents exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9,
	1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// pow5 holds 5^0 to 5^27, the powers of five below 2^64.
var pow5 = func() (p [28]uint64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 5
	}
	return p
}()

// exactFloat reads a plain decimal ([-]digits[.digits][e[+-]digits]) of at
// most 19 significant digits, an integer m, and scale 10^e with |e| <= 27,
// and returns the float64 nearest m*10^e (ties to even), the value
// strconv.ParseFloat returns. When m is below 2^53 and |e| <= 22 both are
// exact float64s and m*10^e (or m/10^-e) is one correctly rounded
// operation (Clinger's fast path, which strconv itself takes first:
// atof64exact in Go's strconv/atof.go); otherwise it is rounded from an
// exact integer computation (exactScaled). It reports false for anything
// else, which the caller hands to strconv: weights written by a program
// (Python's repr, with up to 17 digits; Go's %v) take this path, at a
// fraction of strconv's cost.
func exactFloat(s string) (float64, bool) {
	f, n, ok := exactFloatPrefix(s)
	return f, ok && n == len(s)
}

// exactFloatPrefix reads a plain decimal at the start of s as exactFloat
// does, greedily (digits, then a '.' and digits, then an 'e' or 'E', a
// sign and digits), and returns its value and length; it reports false
// where exactFloat would for that prefix (no digits, an 'e' without
// exponent digits, more than 19 significant digits, a scale past
// 10^27). When the length is len(s), the result is exactFloat(s). It
// lets a caller read a number and find the end of its field in one pass
// (fastRow: the byte after the number must be the separator or the
// line's end).
func exactFloatPrefix(s string) (float64, int, bool) {
	i, neg := 0, false
	if len(s) > 0 && s[0] == '-' {
		neg, i = true, 1
	}
	// Significant digits are those from the first nonzero one on: the
	// zeros before it (in the integer part, or after the point when the
	// integer part is zero) are skipped first, so the loops that build m
	// only accumulate. Past 19 significant digits m has wrapped, and the
	// number is refused.
	var m uint64
	frac, exp := 0, 0
	start := i
	for i < len(s) && s[i] == '0' {
		i++
	}
	sig := i
	for ; i < len(s); i++ {
		d := s[i] - '0'
		if d > 9 {
			break
		}
		m = m*10 + uint64(d)
	}
	intDigits := i - start
	digits := i - sig
	if i < len(s) && s[i] == '.' {
		i++
		fs := i
		if digits == 0 {
			for i < len(s) && s[i] == '0' {
				i++
			}
		}
		fsig := i
		for ; i < len(s); i++ {
			d := s[i] - '0'
			if d > 9 {
				break
			}
			m = m*10 + uint64(d)
		}
		digits += i - fsig
		frac = i - fs
	}
	if intDigits+frac == 0 || digits > 19 {
		return 0, 0, false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		eneg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			eneg = s[i] == '-'
			i++
		}
		es := i
		for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			exp = exp*10 + int(s[i]-'0')
			if exp > 1000 {
				return 0, 0, false
			}
		}
		if i == es {
			return 0, 0, false
		}
		if eneg {
			exp = -exp
		}
	}
	e := exp - frac
	f := float64(m)
	switch {
	case m == 0:
		f = 0
	case m < 1<<53 && e >= 0 && e < len(pow10):
		f *= pow10[e]
	case m < 1<<53 && e < 0 && -e < len(pow10):
		f /= pow10[-e]
	case e > -len(pow5) && e < len(pow5):
		f = exactScaled(m, e)
	default:
		return 0, 0, false
	}
	if neg {
		f = -f
	}
	return f, i, true
}

// exactScaled returns m*10^e rounded to the nearest float64, ties to even,
// for m > 0 and |e| < len(pow5), from exact integers: 10^e is 5^e * 2^e,
// and 5^|e| fits 64 bits. For e >= 0 the product m*5^e (128 bits) is
// rounded to 53 bits; for e < 0 the quotient of m*2^s by 5^-e, with s
// chosen so that it has 63 or 64 bits, is rounded to 53 bits with the
// remainder as sticky bit. The binary exponent stays far inside float64's
// normal range (|m*10^e| is within 1e-28 to 1e47), so math.Ldexp is exact.
func exactScaled(m uint64, e int) float64 {
	var q, shift uint64
	sticky := false
	var scale int
	if e >= 0 {
		hi, lo := bits.Mul64(m, pow5[e])
		scale = e
		if hi != 0 {
			// Keep the top 64 bits of the 128; what falls off is sticky.
			n := uint(bits.Len64(hi))
			sticky = lo<<(64-n) != 0
			q = hi<<(64-n) | lo>>n
			scale += int(n)
		} else {
			q = lo
		}
	} else {
		d := pow5[-e]
		// m<<s has 63+len(d) bits; s >= 2, as len(m) <= 64 and d >= 5.
		s := 63 + bits.Len64(d) - bits.Len64(m)
		var hi, lo uint64
		if s >= 64 {
			hi = m << (s - 64)
		} else {
			hi, lo = m>>(64-s), m<<s
		}
		var r uint64
		q, r = bits.Div64(hi, lo, d) // hi < 2^(len(d)-1) <= d: no overflow
		sticky = r != 0
		scale = e - s
	}
	n := bits.Len64(q)
	if n > 53 {
		shift = uint64(n - 53)
		rest := q & (1<<shift - 1)
		half := uint64(1) << (shift - 1)
		q >>= shift
		if rest > half || rest == half && (sticky || q&1 == 1) {
			q++ // 2^53 at most: still exact
		}
		scale += int(shift)
	}
	return math.Ldexp(float64(q), scale)
}
