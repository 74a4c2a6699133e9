package input

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"sync"

	"github.com/valyala/fastjson"

	"github.com/shardkey/shardkey"
)

// JSONL sample files are read by a pipeline: one goroutine reads lines in
// batches, GOMAXPROCS workers parse them with fastjson into jline values
// (no maps, nothing tied to the parser), and the caller consumes them in
// file order, so results and the first error reported do not depend on
// scheduling.

// utf8BOM is the byte-order mark, ignored at the start of a file.
var utf8BOM = []byte("\ufeff")

// blockSize is the size of the blocks of whole lines read as one batch.
const blockSize = 256 << 10

type batch struct {
	first  int      // line number of lines[0]; 0 when not counted (see readMapped)
	buf    []byte   // the lines' bytes, as read
	lines  [][]byte // the lines, trimmed (nil for blank ones, kept for numbering)
	nlines int      // lines in it (from split), blank ones included
	out    []jline
	done   chan struct{}
	fault  error // reading its mapped bytes failed (see mappedFault)

	// Streaming (see Builder.Sink): the batch's partial, its operations
	// in order of first use, and the first error.
	sb  shardkey.Batch
	ops []localOp
	n   int
	err error
}

// split cuts b.buf into lines (on the worker, so the reader only reads),
// appending them to dst, a buffer the worker reuses: lines are used only
// while the worker works on the batch.
func (b *batch) split(dst [][]byte) {
	data := b.buf
	b.lines = dst[:0]
	for len(data) > 0 {
		k := bytes.IndexByte(data, '\n')
		l := data
		if k >= 0 {
			l, data = data[:k], data[k+1:]
		} else {
			data = nil
		}
		if t := bytes.TrimSpace(l); len(t) > 0 {
			b.lines = append(b.lines, t[:len(t):len(t)])
		} else {
			b.lines = append(b.lines, nil)
		}
	}
	b.nlines = len(b.lines)
}

// jline is one parsed sample line.
type jline struct {
	line   int
	err    error
	fields []string  // top-level keys, for unknown-field checks
	where  []jcond   // queries: the where clause
	set    []jcond   // queries: an update's new values ("set")
	writes [][]jcond // transactions
	lineMeta
	// Resolved off the consumer's path when the tables are fixed (see
	// Builder.frozen): the table and conditions of a query, the
	// statements of a transaction, or the error resolving them.
	resolved bool
	ti       int
	conds    []shardkey.Cond
	stmts    []shardkey.Stmt
	rerr     error
}

// lineMeta is what a query or transaction line says besides its
// conditions: which of where and writes it has, its weight (1 if none),
// table, kind, name and latency.
type lineMeta struct {
	hasWhr  bool
	hasWr   bool
	weight  float64
	hasWt   bool
	table   string
	hasTbl  bool
	kind    string
	name    string
	latency string
}

// jcond is one "col": value of a where clause or write. An equality, by
// far the commonest, is held inline; IN lists, ranges and errors live
// behind x, so the millions of conditions of a large sample stay small.
type jcond struct {
	col string
	op  shardkey.Op
	one scalar    // Eq: the value
	x   *jcondExt // In, Range, or an error
}

type jcondExt struct {
	vals   []scalar        // In: the list
	lo, hi scalar          // Range ends
	bd     shardkey.Bounds // Range flags only
	err    error           // a message for field errFld
	errFld string
}

func (c *jcond) ext() *jcondExt {
	if c.x == nil {
		c.x = &jcondExt{}
	}
	return c.x
}

// forEachLine parses file's lines in parallel with parse and hands them to
// consume in order. It stops at the first error consume returns.
func forEachLine(file string, r io.Reader, parse func(p *lineParser, b []byte, line int) jline, consume func(*jline) error) error {
	work := func(p *lineParser, b *batch) {
		b.split(p.lines)
		b.out = make([]jline, 0, len(b.lines))
		for i, l := range b.lines {
			if l == nil {
				continue
			}
			b.out = append(b.out, parse(p, l, b.first+i))
		}
		p.lines, b.lines = b.lines[:0], nil
	}
	return forEachBatch(file, r, false, work, func(b *batch) error {
		for i := range b.out {
			if err := consume(&b.out[i]); err != nil {
				return err
			}
		}
		return nil
	})
}

// forEachBatch reads file's lines in batches, runs work on each batch in
// parallel (GOMAXPROCS goroutines, each with its own lineParser; work
// cuts the batch into lines, split, or walks them itself, and sets
// nlines), and hands the batches to consume in file order. It stops at the first error
// consume returns. The bytes of a batch's lines are never modified once
// read, so work may keep views of them as long as the batch lives; with
// recycle set, nothing may refer to them once consume has returned (nor
// may consume itself read them): their memory is reused for later
// batches, or, when r is a regular file, they are views of the file
// mapped into memory, which is unmapped when forEachBatch returns.
func forEachBatch(file string, r io.Reader, recycle bool, work func(p *lineParser, b *batch), consume func(*batch) error) error {
	workers := runtime.GOMAXPROCS(0)
	free := make(chan []byte, workers*4)
	jobs := make(chan *batch, workers*2)
	order := make(chan *batch, workers*4)
	stop := make(chan struct{})
	readErr := make(chan error, 1)
	var mapped []byte
	var err error
	var running sync.WaitGroup
	if f, ok := r.(*os.File); ok && recycle {
		var unmap func()
		if mapped, unmap = mapFile(f); mapped != nil {
			// Mapping saves copying the file through read calls. The
			// workers and the reader are waited for before unmapping.
			// After an error the file stays mapped: the error may quote
			// the line's bytes (a field name), and a mapping that is
			// never used again costs nothing but address space.
			if afterMap != nil {
				afterMap(f)
			}
			defer func() {
				if running.Wait(); err == nil {
					unmap()
				}
			}()
		}
	}
	defer running.Wait()
	running.Add(1)
	if mapped != nil {
		go func() {
			defer running.Done()
			defer close(jobs)
			defer close(order)
			defer func() {
				if e := recover(); e != nil {
					readErr <- mappedFault(file, e)
				}
			}()
			debug.SetPanicOnFault(true)
			if err := readMapped(file, mapped, jobs, order, stop); err != nil {
				readErr <- err
			}
		}()
	} else {
		go func() {
			defer running.Done()
			readBlocks(file, r, free, jobs, order, stop, readErr)
		}()
	}
	for w := 0; w < workers; w++ {
		running.Add(1)
		go func() {
			defer running.Done()
			debug.SetPanicOnFault(mapped != nil)
			p := &lineParser{names: map[string]string{}}
			for b := range jobs {
				func() {
					defer close(b.done)
					defer func() {
						if e := recover(); e != nil {
							b.fault = mappedFault(file, e)
						}
					}()
					work(p, b)
				}()
			}
		}()
	}
	for b := range order {
		<-b.done
		if err != nil {
			continue
		}
		if b.fault != nil {
			err = b.fault
		} else {
			err = consume(b)
		}
		if err != nil {
			close(stop)
		} else if recycle && b.buf != nil && mapped == nil {
			select {
			case free <- b.buf:
			default:
			}
			b.buf = nil
		}
	}
	if err == nil {
		select {
		case err = <-readErr:
		default:
		}
	}
	return err
}

// afterMap, when set (by tests), runs once a file has been mapped.
var afterMap func(*os.File)

// mappedFault turns a fault reading a mapped file (it was truncated while
// being read: SIGBUS, which debug.SetPanicOnFault makes a panic) into an
// input error; any other panic goes on.
func mappedFault(file string, e any) error {
	if _, ok := e.(interface{ Addr() uintptr }); ok {
		return shardkey.Errorf(file, 0, "", "the file changed (was truncated?) while it was being read; read it again")
	}
	panic(e)
}

// send hands batch b to the workers and, in file order, to the consumer;
// false when stop closed first.
func send(b *batch, jobs, order chan<- *batch, stop <-chan struct{}) bool {
	select {
	case jobs <- b:
	case <-stop:
		return false
	}
	select {
	case order <- b:
	case <-stop:
		return false
	}
	return true
}

// readMapped hands out the mapped file data as batches of whole lines of
// about blockSize bytes, in order, to jobs and to order. Like readBlocks
// it refuses a line longer than maxLine. It does not count lines (a pass
// over the whole file): its batches' first is 0, and the consumer, which
// sees them in order, numbers their lines by len(lines).
func readMapped(file string, data []byte, jobs, order chan<- *batch, stop <-chan struct{}) error {
	data = bytes.TrimPrefix(data, utf8BOM)
	all := data
	for len(data) > 0 {
		end := min(len(data), blockSize)
		if end < len(data) {
			if k := bytes.LastIndexByte(data[:end], '\n'); k >= 0 {
				end = k + 1
			} else if k := bytes.IndexByte(data[end:], '\n'); k >= 0 {
				end += k + 1 // one line longer than a block
			} else {
				end = len(data)
			}
		}
		if bytes.IndexByte(data[:min(end, maxLine+1)], '\n') < 0 && end > maxLine {
			line := 1 + bytes.Count(all[:len(all)-len(data)], []byte{'\n'})
			return shardkey.LineTooLong(file, line, maxLine)
		}
		block := data[:end:end]
		data = data[end:]
		b := &batch{buf: block, done: make(chan struct{})}
		if !send(b, jobs, order, stop) {
			return nil
		}
	}
	return nil
}

// readBlocks reads r in blocks of whole lines of about blockSize bytes
// (reusing the buffers in free), and hands them out in order as batches
// to jobs and to order; a read error goes to readErr.
func readBlocks(file string, r io.Reader, free <-chan []byte, jobs, order chan<- *batch, stop <-chan struct{}, readErr chan<- error) {
	defer close(jobs)
	defer close(order)
	line := 1 // number of the next batch's first line
	var carry []byte
	eof, bomChecked := false, false
	for !eof {
		// A block of whole lines: what one read gives, less the
		// partial line at its end, which starts the next block.
		var buf []byte
		select {
		case buf = <-free:
		default:
		}
		if need := max(blockSize, 2*len(carry)); cap(buf) < need {
			buf = make([]byte, 0, need)
		}
		buf = append(buf[:0], carry...)
		end := -1
		for end < 0 && !eof {
			if len(buf) == cap(buf) {
				if len(buf) > maxLine {
					readErr <- shardkey.LineTooLong(file, line, maxLine)
					return
				}
				buf = append(buf, 0)[:len(buf)] // grow: one line is longer than a block
			}
			n, err := r.Read(buf[len(buf):cap(buf)])
			if n > 0 {
				end = bytes.LastIndexByte(buf[len(buf):len(buf)+n], '\n')
				if end >= 0 {
					end += len(buf)
				}
				buf = buf[:len(buf)+n]
			}
			if end < 0 && len(buf) > maxLine { // buf is one unfinished line
				readErr <- shardkey.LineTooLong(file, line, maxLine)
				return
			}
			if err == io.EOF {
				eof = true
			} else if err != nil {
				readErr <- shardkey.Errorf(file, line, "", "%v", err)
				return
			}
		}
		block := buf
		if !eof {
			block = buf[:end+1]
		}
		carry = append(carry[:0], buf[len(block):]...)
		if line == 1 && !bomChecked {
			// A byte-order mark some editors write at the start.
			block, bomChecked = bytes.TrimPrefix(block, utf8BOM), true
		}
		if len(block) == 0 {
			continue
		}
		n := bytes.Count(block, []byte{'\n'})
		b := &batch{first: line, buf: block, done: make(chan struct{})}
		line += n
		if !send(b, jobs, order, stop) {
			return
		}
	}
}

// lineParser is one worker's parser state: fastjson's reusable parser and
// interned column names (a sample repeats the same few names millions of
// times).
type lineParser struct {
	fastjson.Parser
	names map[string]string
	conds []shardkey.Cond // slab that resolved conditions are cut from
	stmts []shardkey.Stmt // slab for resolved statements
	st    *streamState    // streaming scratch (see stream.go)
	lines [][]byte        // the lines of the batch being worked on (see split)
	sc    scanned         // scanLine's scratch
}

// slab sizes: one allocation per this many conditions or statements.
const slab = 1 << 16

// takeConds returns n conditions cut from the worker's slab.
func (p *lineParser) takeConds(n int) []shardkey.Cond {
	if n > slab/4 {
		return make([]shardkey.Cond, n)
	}
	if len(p.conds)+n > cap(p.conds) {
		p.conds = make([]shardkey.Cond, 0, slab)
	}
	c := p.conds[len(p.conds) : len(p.conds)+n : len(p.conds)+n]
	p.conds = p.conds[:len(p.conds)+n]
	return c
}

// takeStmts returns room for n statements cut from the worker's slab.
func (p *lineParser) takeStmts(n int) []shardkey.Stmt {
	if n > slab/4 {
		return make([]shardkey.Stmt, 0, n)
	}
	if len(p.stmts)+n > cap(p.stmts) {
		p.stmts = make([]shardkey.Stmt, 0, slab)
	}
	c := p.stmts[len(p.stmts) : len(p.stmts) : len(p.stmts)+n]
	p.stmts = p.stmts[:len(p.stmts)+n]
	return c
}

func (p *lineParser) intern(b []byte) string {
	if s, ok := p.names[string(b)]; ok {
		return s
	}
	s := string(b)
	if len(p.names) < 1<<14 {
		p.names[s] = s
	}
	return s
}

// parseLine parses one query or transaction line.
func parseLine(p *lineParser, b []byte, line int) jline {
	jl := jline{line: line, lineMeta: lineMeta{weight: 1}}
	if b[0] != '{' {
		jl.err = fmt.Errorf("want a JSON object, got %.20q", b)
		return jl
	}
	v, err := p.ParseBytes(b)
	if err != nil {
		jl.err = fmt.Errorf("invalid JSON: %v", err)
		return jl
	}
	o, _ := v.Object()
	o.Visit(func(k []byte, x *fastjson.Value) {
		key := string(k)
		if slices.Contains(jl.fields, key) && jl.err == nil {
			jl.err = fieldErr{key, "named twice"}
		}
		jl.fields = append(jl.fields, key)
		switch key {
		case "where":
			jl.hasWhr = true
			jl.where, jl.err = parseWhere(p, x, "where", jl.err)
		case "set":
			// An update's new values (shardkey.Instance.Sets).
			jl.set, jl.err = parseWhere(p, x, "set", jl.err)
			for _, c := range jl.set {
				if c.op != shardkey.Eq && jl.err == nil && (c.x == nil || c.x.err == nil) {
					jl.err = fieldErr{"set." + c.col, `"set" gives the new values; {"in": [...]} and ranges belong in "where"`}
				}
			}
		case "writes":
			jl.hasWr = true
			arr, err := x.Array()
			if err != nil {
				if jl.err == nil {
					jl.err = fieldErr{"writes", "want a list of objects"}
				}
				return
			}
			for i, wv := range arr {
				var conds []jcond
				prev := jl.err
				conds, jl.err = parseWhere(p, wv, "writes", jl.err)
				if jl.err != nil && prev == nil {
					if fe, ok := jl.err.(fieldErr); ok {
						f := fmt.Sprintf("writes[%d]", i)
						if fe.field != "writes" {
							f += "." + fe.field
						}
						jl.err = fieldErr{f, fe.msg}
					}
				}
				for _, c := range conds {
					if c.op != shardkey.Eq && jl.err == nil && (c.x == nil || c.x.err == nil) {
						// A write is an inserted row: values only.
						jl.err = fieldErr{fmt.Sprintf("writes[%d].%s", i, c.col), `a write gives the row's values; {"in": [...]} and ranges belong in queries`}
					}
				}
				jl.writes = append(jl.writes, conds)
			}
		case "weight":
			jl.hasWt = true
			// The number's own text through strconv: fastjson's Float64
			// can be one unit in the last place off (36e-3).
			if x.Type() != fastjson.TypeNumber {
				if jl.err == nil {
					jl.err = fieldErr{"weight", fmt.Sprintf("%s is not a number", x)}
				}
				return
			}
			f, err := weightNumber(x.String()) // checked with the line (lineErr)
			if err != nil {
				if jl.err == nil {
					jl.err = fieldErr{"weight", err.Error()}
				}
				return
			}
			jl.weight = f
		case "table", "kind", "name", "latency":
			sb, err := x.StringBytes()
			if err != nil {
				if jl.err == nil {
					jl.err = fieldErr{key, "want a string"}
				}
				return
			}
			switch key {
			case "table":
				jl.table, jl.hasTbl = string(sb), true
			case "kind":
				jl.kind = string(sb)
			case "name":
				jl.name = string(sb)
			case "latency":
				jl.latency = string(sb)
			}
		}
	})
	return jl
}

// fieldErr is a parse error at a field.
type fieldErr struct{ field, msg string }

func (e fieldErr) Error() string { return e.field + ": " + e.msg }

func parseWhere(p *lineParser, v *fastjson.Value, field string, prev error) ([]jcond, error) {
	o, err := v.Object()
	if err != nil {
		if prev == nil {
			prev = fieldErr{field, fmt.Sprintf("want a JSON object, got %.30s", v.String())}
		}
		return nil, prev
	}
	conds := make([]jcond, 0, o.Len())
	o.Visit(func(k []byte, x *fastjson.Value) {
		conds = append(conds, parseCond(p, p.intern(k), x))
	})
	sort.SliceStable(conds, func(i, j int) bool { return conds[i].col < conds[j].col })
	for i := 1; i < len(conds) && prev == nil; i++ {
		if conds[i].col == conds[i-1].col {
			prev = fieldErr{conds[i].col, "named twice"}
		}
	}
	return conds, prev
}

func fastScalar(p *lineParser, v *fastjson.Value) (scalar, error) {
	switch v.Type() {
	case fastjson.TypeString:
		sb, _ := v.StringBytes()
		if len(sb) <= 24 {
			return scalar{str: p.intern(sb), isStr: true}, nil // months, statuses, codes repeat
		}
		return scalar{str: string(sb), isStr: true}, nil
	case fastjson.TypeNumber:
		if i, err := v.Int64(); err == nil {
			// An exact integer: no text kept (toValue rebuilds it).
			return scalar{isInt: true, i: i}, nil
		}
		s := v.String()
		if _, err := strconv.ParseFloat(s, 64); err != nil {
			return scalar{}, fmt.Errorf("invalid number %q", s)
		}
		return scalar{num: s}, nil
	case fastjson.TypeNull:
		return scalar{null: true}, nil
	case fastjson.TypeTrue, fastjson.TypeFalse, fastjson.TypeObject:
		return bsonScalar(v.MarshalTo(nil))
	}
	return scalar{}, fmt.Errorf("want a number, string or Extended JSON value, got %.30s", v.String())
}

func parseCond(p *lineParser, col string, v *fastjson.Value) jcond {
	c := jcond{col: col, op: shardkey.Eq}
	fail := func(field, format string, args ...any) jcond {
		c.ext().err, c.ext().errFld = fmt.Errorf(format, args...), field
		return c
	}
	switch v.Type() {
	case fastjson.TypeArray:
		return fail(col, `a list is ambiguous: write {"in": [...]}`)
	case fastjson.TypeObject:
		o, _ := v.Object()
		if isExtJSONObject(o) {
			break // {"$oid": ...}: one value
		}
		if o.Len() == 0 {
			return fail(col, `empty condition: want a value, {"in": [...]} or {"gte": a, "lt": b}`)
		}
		if lst := o.Get("in"); lst != nil {
			if o.Len() != 1 {
				return fail(col, `"in" cannot be combined with other comparisons`)
			}
			items, err := lst.Array()
			if err != nil {
				return fail(col+".in", "want a JSON list")
			}
			c.op = shardkey.In
			x := c.ext()
			x.vals = make([]scalar, 0, len(items))
			for k, it := range items {
				s, err := fastScalar(p, it)
				if err != nil {
					return fail(fmt.Sprintf("%s.in[%d]", col, k), "%v", err)
				}
				x.vals = append(x.vals, s)
			}
			return c
		}
		if eq := o.Get("eq"); eq != nil && o.Len() == 1 {
			return parseCond(p, col, eq)
		}
		c.op = shardkey.Range
		ex := c.ext()
		var bad jcond
		failed := false
		o.Visit(func(k []byte, v *fastjson.Value) {
			if failed {
				return
			}
			key := string(k)
			s, err := fastScalar(p, v)
			if err != nil {
				bad, failed = fail(col+"."+key, "%v", err), true
				return
			}
			switch key {
			case "gte", "gt":
				if ex.bd.HasLo {
					bad, failed = fail(col, "two lower bounds"), true
					return
				}
				ex.lo, ex.bd.HasLo, ex.bd.LoIncl = s, true, key == "gte"
			case "lte", "lt":
				if ex.bd.HasHi {
					bad, failed = fail(col, "two upper bounds"), true
					return
				}
				ex.hi, ex.bd.HasHi, ex.bd.HiIncl = s, true, key == "lte"
			default:
				bad, failed = fail(col+"."+key, `unknown comparison %q (want in, eq, gte, gt, lte, lt)`, key), true
			}
		})
		if failed {
			return bad
		}
		return c
	}
	s, err := fastScalar(p, v)
	if err != nil {
		return fail(col, "%v", err)
	}
	c.one = s
	return c
}

// isExtJSONObject reports whether o is a MongoDB Extended JSON value
// ({"$oid": ...}, {"$date": ...}, ...): its keys all begin with '$'.
func isExtJSONObject(o *fastjson.Object) bool {
	dollar := o.Len() > 0
	o.Visit(func(k []byte, _ *fastjson.Value) {
		if len(k) == 0 || k[0] != '$' {
			dollar = false
		}
	})
	return dollar
}
