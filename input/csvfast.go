package input

import (
	"bytes"
	"cmp"
	"errors"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/shardkey/shardkey"
)

// CSV files without a quote character, by far the common case for samples
// exported from a database, are read by readCSVFast: the whole file is in
// memory, cut into chunks at line ends, and the chunks are parsed in
// parallel straight into typed columns, then joined in file order. A
// regular file is mapped (readCSVMapped), not copied: its text values are
// then copied out (a value repeating the previous row's shares its copy),
// and the mapping released once it is read; otherwise the file is read
// into one buffer and text values are views of it (one allocation for the
// file, none per value). The result, and every error, is what encoding/csv and
// readCSVRows give for the same bytes: with no quotes, a record is a line
// (a "\r" before the "\n" removed, empty lines skipped) split at the
// separator.

// csvChunkSize is the size of the parts of a file parsed in parallel (a
// variable so tests can make several chunks of a small file).
var csvChunkSize = 4 << 20

// readAllAt fills data from f (a regular file of exactly len(data) bytes)
// with reads at offsets spread over GOMAXPROCS goroutines, and reports
// whether it holds a '"': reading a large file from the page cache is a
// copy that one core would otherwise do alone while the others wait.
func readAllAt(f *os.File, data []byte) (quoted bool, err error) {
	const piece = 8 << 20
	n := (len(data) + piece - 1) / piece
	errs := make([]error, n)
	quotes := make([]bool, n)
	parallel(n, func(i int) {
		b := data[i*piece : min((i+1)*piece, len(data))]
		k, err := f.ReadAt(b, int64(i*piece))
		if k == len(b) {
			err = nil // ReadAt may report io.EOF with the last byte
		} else if err == nil || err == io.EOF {
			err = errShrunk // shorter than its size said a moment ago
		}
		errs[i] = err
		quotes[i] = bytes.IndexByte(b, '"') >= 0
	})
	for i := range errs {
		if errs[i] != nil {
			return false, errs[i]
		}
		quoted = quoted || quotes[i]
	}
	return quoted, nil
}

// readCSVMapped reads f, a regular CSV file with separator sep, through a
// mapping of it (mapFile): the file's bytes are not copied into a buffer
// the size of the file, whose every page is fresh memory to fault in (90
// MB for seed 000's 2 M rows). It reports false, having read nothing, when
// the file cannot be mapped or holds a '"' (then the caller reads it).
// A fault reading the mapping (the file was truncated meanwhile) is the
// error mappedFault returns.
func readCSVMapped(f *os.File, file, name string, sep byte, o Options) (t *shardkey.Table, ok bool, err error) {
	data, unmap := mapFile(f)
	if data == nil {
		return nil, false, nil
	}
	if afterMap != nil {
		afterMap(f)
	}
	defer func() {
		if err == nil {
			// Nothing refers to the mapping: values are copies. After
			// an error it stays (its message may have been built from
			// views of it; an unused mapping costs only address space).
			unmap()
		}
	}()
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if e := recover(); e != nil {
			t, ok, err = nil, true, mappedFault(file, e)
		}
	}()
	// readCSVFast looks for a '"' as it counts each chunk's lines, in
	// the same pass over the mapping.
	t, err = readCSVFast(data, file, name, sep, o, true)
	if err == errQuoted {
		return nil, false, nil
	}
	return t, true, err
}

// errQuoted is readCSVFast's report, for a mapped file, that the file
// holds a '"' (readCSVMapped then leaves it to the reader of quoted
// files).
var errQuoted = errors.New("the file holds a quote")

// errShrunk says a file ended before the size it had when it was opened.
var errShrunk = errors.New("the file changed (was truncated?) while it was being read; read it again")

// csvChunk is one chunk's parsed rows.
type csvChunk struct {
	off, end int  // byte range in the file
	start    int  // index of its first row in the table
	lines    int  // lines in it: the most rows it can have
	rows     int  // rows parsed (lines less empty ones)
	errOff   int  // offset of the line with the first error
	quoted   bool // a '"' in it (looked for in a mapped file only)
	err      func(line int) error
}

// csvCols are the table's column slices, sized before parsing, that the
// chunks write their rows into, each at its own rows.
type csvCols struct {
	cols    []*shardkey.Column // by field; nil for the weight
	weights []float64
	total   int // rows the slices have room for
	// numSafe: the separator is no byte of a decimal, so fastRow reads
	// a weight without first finding its field's end.
	numSafe bool
	mu      sync.Mutex // guards creating a column's Nulls
}

// readCSVFast reads data, a CSV file with no '"' byte, with separator sep.
// With mapped set, data is file's mapping (readCSVMapped): the table's
// text values are copies (the mapping goes once the file is read), and a
// fault reading it (the file was truncated meanwhile) in a parsing
// goroutine is the error mappedFault returns, not a crash.
func readCSVFast(data []byte, file, name string, sep byte, o Options, mapped bool) (*shardkey.Table, error) {
	// inParallel is parallel, under fault protection when mapped.
	inParallel := func(n int, f func(i int)) error {
		if !mapped {
			parallel(n, f)
			return nil
		}
		var mu sync.Mutex
		var ferr error
		parallel(n, func(i int) {
			defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
			defer func() {
				if e := recover(); e != nil {
					err := mappedFault(file, e) // panics again unless a fault
					mu.Lock()
					ferr = cmp.Or(ferr, err)
					mu.Unlock()
				}
			}()
			f(i)
		})
		return ferr
	}
	data = bytes.TrimPrefix(data, utf8BOM) // as readCSVRows skips it
	// The header: the first non-empty line.
	off, line := 0, 0
	var header []string
	for off < len(data) {
		l, next := csvLine(data, off)
		line++
		off = next
		if len(l) > 0 {
			header = splitFields(nil, l, sep)
			break
		}
	}
	if header == nil {
		return nil, shardkey.Errorf(file, 1, "", "empty file: want a header line naming the columns")
	}
	header[0] = strings.TrimPrefix(header[0], "\ufeff")
	for i, h := range header {
		header[i] = strings.Clone(h) // names outlive the file's bytes
	}
	bodyOff, bodyLine := off, line+1
	// A mapped file is checked for a '"' (errQuoted) before anything
	// can fail: the part before the body here, the body as its lines
	// are counted.
	if mapped && bytes.IndexByte(data[:bodyOff], '"') >= 0 {
		return nil, errQuoted
	}
	// Chunks of about csvChunkSize bytes, ending at line ends, parsed in
	// parallel.
	chunkSize := csvChunkSize
	var chunks []*csvChunk
	for p := bodyOff; p < len(data); {
		end := min(p+chunkSize, len(data))
		if end < len(data) {
			if k := bytes.IndexByte(data[end:], '\n'); k >= 0 {
				end += k + 1
			} else {
				end = len(data)
			}
		}
		chunks = append(chunks, &csvChunk{off: p, end: end})
		p = end
	}
	// Each chunk's rows go at a fixed place in the columns: its lines
	// are counted first (empty lines, which hold no row, are closed up
	// after parsing).
	if err := inParallel(len(chunks), func(i int) {
		c := chunks[i]
		b := data[c.off:c.end]
		if mapped {
			c.quoted = bytes.IndexByte(b, '"') >= 0
		}
		c.lines = bytes.Count(b, []byte{'\n'})
		if c.end == len(data) && c.end > c.off && data[c.end-1] != '\n' {
			c.lines++
		}
	}); err != nil {
		return nil, err
	}
	for _, c := range chunks {
		if c.quoted {
			return nil, errQuoted
		}
	}
	t := &shardkey.Table{Name: name}
	weightCol, err := csvHeader(file, line, header)
	if err != nil {
		return nil, err
	}
	// Types from the first InferRows records.
	var sample [][]string
	var lines []int
	for p, ln := off, line+1; p < len(data) && len(sample) < InferRows; ln++ {
		l, next := csvLine(data, p)
		p = next
		if len(l) > 0 {
			sample = append(sample, splitFields(nil, l, sep))
			lines = append(lines, ln)
		}
	}
	types := csvTypes(file, header, weightCol, name, o, sample, lines)

	total := 0
	for _, c := range chunks {
		c.start = total
		total += c.lines
	}
	cc := &csvCols{cols: make([]*shardkey.Column, len(header)), total: total,
		numSafe: !strings.ContainsRune("0123456789.eE+-", rune(sep))}
	for i, h := range header {
		if i == weightCol {
			cc.weights = make([]float64, total)
			continue
		}
		col := &shardkey.Column{Name: h, Type: types[i]}
		switch types[i] {
		case shardkey.Float32, shardkey.Float64:
			col.Floats = make([]float64, total)
		case shardkey.Text, shardkey.Bytes, shardkey.UUID, shardkey.ObjectID, shardkey.ExtJSON:
			col.Strs = make([]string, total)
		case shardkey.Null: // only Nulls, as Column.Append keeps it
		default:
			col.Ints = make([]int64, total)
		}
		cc.cols[i] = col
		t.Columns = append(t.Columns, col)
	}
	if err := inParallel(len(chunks), func(i int) {
		parseCSVChunk(chunks[i], cc, data, file, header, weightCol, sep, mapped)
	}); err != nil {
		return nil, err
	}

	for _, c := range chunks {
		if c.err != nil {
			// Line numbers count from the body's first line.
			return nil, c.err(bodyLine + bytes.Count(data[bodyOff:c.errOff], []byte{'\n'}))
		}
	}
	// Close up the rows of empty lines.
	rows := 0
	for _, c := range chunks {
		if c.start != rows {
			for _, col := range cc.cols {
				if col != nil {
					moveRows(col.Ints, rows, c.start, c.rows)
					moveRows(col.Floats, rows, c.start, c.rows)
					moveRows(col.Strs, rows, c.start, c.rows)
					moveRows(col.Nulls, rows, c.start, c.rows)
				}
			}
			moveRows(cc.weights, rows, c.start, c.rows)
		}
		rows += c.rows
	}
	for _, col := range cc.cols {
		if col != nil {
			col.Ints = trimRows(col.Ints, rows)
			col.Floats = trimRows(col.Floats, rows)
			col.Strs = trimRows(col.Strs, rows)
			col.Nulls = trimRows(col.Nulls, rows)
		}
	}
	if weightCol >= 0 {
		t.Weights = cc.weights[:rows]
	}
	t.Rows = rows
	if rows == 0 {
		return nil, shardkey.Errorf(file, 2, "", "no rows after the header")
	}
	return t, nil
}

// parallel runs f(0), ..., f(n-1) on GOMAXPROCS goroutines, taking
// indices in order, and returns when all have returned.
func parallel(n int, f func(i int)) {
	next := make(chan int, n)
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	for g := 0; g < runtime.GOMAXPROCS(0) && g < n; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				f(i)
			}
		}()
	}
	wg.Wait()
}

// csvLine returns the line at off without its "\n" (and a "\r" before
// it), and the offset after it.
func csvLine(data []byte, off int) ([]byte, int) {
	k := bytes.IndexByte(data[off:], '\n')
	var l []byte
	next := len(data)
	if k < 0 {
		l = data[off:]
	} else {
		l = data[off : off+k]
		next = off + k + 1
	}
	if n := len(l); n > 0 && l[n-1] == '\r' {
		l = l[:n-1]
	}
	return l, next
}

// splitFields appends l's fields, views of l, to dst.
func splitFields(dst []string, l []byte, sep byte) []string {
	for {
		k := bytes.IndexByte(l, sep)
		if k < 0 {
			return append(dst, view(l))
		}
		dst = append(dst, view(l[:k]))
		l = l[k+1:]
	}
}

// parseCSVChunk parses the lines of c into rows c.start, c.start+1, ...
// of cc's columns. With clone set, text values are copies of data's
// bytes, not views: a value equal to the column's previous one in the
// chunk (a month, a status) shares that one's copy, and the others are
// copied into blocks of 64 KiB shared by the chunk's values (one
// allocation per block, not per value, for a column of distinct ids).
func parseCSVChunk(c *csvChunk, cc *csvCols, data []byte, file string, header []string, weightCol int, sep byte, clone bool) {
	fields := make([]string, 0, len(header))
	var last []string // by field: the previous text value's copy
	if clone {
		last = make([]string, len(header))
	}
	var block []byte
	own := func(i int, s string) string {
		if !clone || len(s) == 0 {
			return s
		}
		if s == last[i] {
			return last[i]
		}
		if len(s) > cap(block)-len(block) {
			block = make([]byte, 0, max(64<<10, len(s)))
		}
		k := len(block)
		block = append(block, s...)
		last[i] = view(block[k:len(block):len(block)])
		return last[i]
	}
	row := c.start
	for p := c.off; p < c.end; {
		l, next := csvLine(data, p)
		lineOff := p
		p = next
		if len(l) == 0 {
			continue
		}
		if fastRow(l, row, cc, sep, weightCol, own) {
			row++
			c.rows++
			continue
		}
		fields = splitFields(fields[:0], l, sep)
		fail := func(f func(line int) error) {
			c.errOff, c.err = lineOff, f
		}
		if len(fields) != len(header) {
			n := len(fields)
			fail(func(line int) error {
				return shardkey.Errorf(file, line, "", "%d fields, header has %d", n, len(header))
			})
			return
		}
		for i, s := range fields {
			if i == weightCol {
				w, err := parseWeight(s)
				if err != nil {
					fail(func(line int) error { return shardkey.Errorf(file, line, header[i], "%v", err) })
					return
				}
				cc.weights[row] = w
				continue
			}
			col := cc.cols[i]
			switch col.Type {
			case shardkey.Int64:
				if n, ok := plainInt(s); ok {
					col.Ints[row] = n
					continue
				}
			case shardkey.Text:
				col.Strs[row] = own(i, s)
				continue
			}
			v, err := shardkey.ParseValue(s, col.Type)
			if err != nil {
				typ := col.Type
				fail(func(line int) error {
					return shardkey.Errorf(file, line, header[i], "%v (type %s; set it with --column-type %s=TYPE)", err, typ, header[i])
				})
				return
			}
			switch {
			case v.Type == shardkey.Null:
				cc.mu.Lock()
				if col.Nulls == nil {
					col.Nulls = make([]bool, cc.total)
				}
				cc.mu.Unlock()
				col.Nulls[row] = true
			case v.Type == shardkey.Float32 || v.Type == shardkey.Float64:
				col.Floats[row] = v.Float
			case v.Type.IsStr():
				col.Strs[row] = own(i, v.Str)
			default:
				col.Ints[row] = v.Int
			}
		}
		row++
		c.rows++
	}
}

// fastRow parses line l into row of cc's columns in one pass over its
// bytes, when every field is of the commonest kinds: a plain integer (1 to
// 18 digits, optionally negative) in an Int64 column, a text value in a
// Text column, a weight exactFloat reads exactly (and checkWeight
// accepts), and exactly one field per header column. It reports false,
// having perhaps written some of the row, for anything else (another
// type, a NULL, an empty or longer number, a field too many or too few, a
// bad value); the caller then parses the line as before (splitFields,
// with its errors), which rewrites the whole row. It saves splitting the
// line into views first: two passes over each field and a search per
// field (seed 000's 2 M rows: customer_id, order_id, order_month,
// weight).
func fastRow(l []byte, row int, cc *csvCols, sep byte, weightCol int, own func(int, string) string) bool {
	p := 0
	last := len(cc.cols) - 1
	for i, col := range cc.cols {
		if i > 0 {
			// The previous field ended at a separator.
			if p >= len(l) || l[p] != sep {
				return false
			}
			p++
		}
		if i == weightCol && cc.numSafe {
			// The weight is read where it starts; the byte after it
			// must be the next field's separator (checked above at the
			// next field) or the line's end (checked at the end), so
			// a field with more after the number is refused.
			w, n, ok := exactFloatPrefix(view(l[p:]))
			if !ok || checkWeight(w) != nil {
				return false
			}
			cc.weights[row] = w
			p += n
			continue
		}
		if i == weightCol || col.Type == shardkey.Text {
			end := len(l)
			k := bytes.IndexByte(l[p:], sep)
			if (k >= 0) != (i < last) {
				return false // a field too few, or too many
			}
			if k >= 0 {
				end = p + k
			}
			s := view(l[p:end])
			p = end
			if i == weightCol {
				w, ok := exactFloat(s)
				if !ok || checkWeight(w) != nil {
					return false
				}
				cc.weights[row] = w
			} else {
				col.Strs[row] = own(i, s)
			}
			continue
		}
		if col.Type != shardkey.Int64 {
			return false
		}
		neg := p < len(l) && l[p] == '-'
		if neg {
			p++
		}
		start := p
		var n int64
		for p < len(l) {
			d := l[p] - '0'
			if d > 9 {
				break
			}
			n = n*10 + int64(d)
			p++
		}
		if p == start || p-start > 18 {
			return false
		}
		if neg {
			n = -n
		}
		col.Ints[row] = n
	}
	return p == len(l)
}

// moveRows moves n values of s from row from to row to (to <= from); s
// may be nil.
func moveRows[T any](s []T, to, from, n int) {
	if s != nil {
		copy(s[to:to+n], s[from:from+n])
	}
}

// trimRows cuts s (unless nil) to n rows.
func trimRows[T any](s []T, n int) []T {
	if s == nil {
		return nil
	}
	return s[:n]
}

// plainInt parses an optionally negative decimal integer of 1 to 18
// digits, the commonest id; anything else is left to ParseValue.
func plainInt(s string) (int64, bool) {
	neg := false
	if len(s) > 0 && s[0] == '-' {
		neg, s = true, s[1:]
	}
	if len(s) == 0 || len(s) > 18 {
		return 0, false
	}
	var n int64
	for i := 0; i < len(s); i++ {
		d := s[i] - '0'
		if d > 9 {
			return 0, false
		}
		n = n*10 + int64(d)
	}
	if neg {
		n = -n
	}
	return n, true
}
