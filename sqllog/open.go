package sqllog

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cespare/xxhash/v2"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/shardkey/shardkey"
)

// StdinName names standard input (--log -) in messages and as the
// workload's name.
const StdinName = "standard input"

// source is one file of a log: a path, or standard input ("-").
type source struct {
	name string
	r    io.Reader // already open (Read, standard input); nil: open name
	size int64     // bytes on disk; -1 unknown
	// head is the xxhash64 of the first headBytes of the decompressed
	// content, headLen how many bytes that was (set by ordered, which
	// finds copies of one log with it).
	head    uint64
	headLen int
	// prefix is a copy of the first prefixBytes of that content: a file
	// shorter than headBytes may be a prefix of a longer one, whose head
	// hashes more bytes, so the two are compared when one prefix starts
	// the other (see maybeCopy).
	prefix []byte
}

// prefixBytes is how much of each file's decompressed content is kept to
// find a short copy of a longer log (1 KiB a file).
const prefixBytes = 1 << 10

// setHead sets s's head, headLen and prefix from the first headBytes (or
// fewer, the whole content) of its decompressed content.
func (s *source) setHead(head []byte) {
	s.head, s.headLen = xxhash.Sum64(head), len(head)
	s.prefix = bytes.Clone(head[:min(len(head), prefixBytes)])
}

// maybeCopy reports whether a and b may hold the same log, one equal to
// or a prefix of the other, as far as their heads tell: equal heads, or a
// file shorter than headBytes whose kept prefix starts the other's (the
// contents are then compared byte for byte, whatever their sizes).
func maybeCopy(a, b *source) bool {
	if a.headLen == 0 || b.headLen == 0 {
		return false
	}
	if a.headLen == b.headLen {
		return a.head == b.head
	}
	short, long := a, b
	if b.headLen < a.headLen {
		short, long = b, a
	}
	return bytes.HasPrefix(long.prefix, short.prefix)
}

// headBytes is how much of each file's decompressed content ordered
// hashes to find candidate copies.
const headBytes = 64 << 10

// open returns the source's raw bytes.
func (s *source) open() (io.ReadCloser, error) {
	if s.r != nil {
		return io.NopCloser(s.r), nil
	}
	return os.Open(s.name)
}

// sources expands one --log value into the files it names: "-" is
// standard input; a directory is its regular files (names starting with a
// dot left out); a pattern with *, ? or [ is the files it matches
// (filepath.Glob); anything else is one file. Several files are one log
// (a rotated set), put in time order by ordered.
func sources(spec string, stdin io.Reader) ([]source, error) {
	if spec == "-" {
		if stdin == nil {
			stdin = os.Stdin
		}
		return []source{{name: StdinName, r: stdin, size: -1}}, nil
	}
	var names []string
	if strings.ContainsAny(spec, "*?[") {
		if _, err := os.Stat(spec); err == nil {
			names = []string{spec} // a file whose name holds a pattern character
		} else {
			m, err := filepath.Glob(spec)
			if err != nil {
				return nil, shardkey.Errorf(spec, 0, "", "bad pattern: %v", err)
			}
			if len(m) == 0 {
				return nil, shardkey.Errorf(spec, 0, "", "no files match this pattern")
			}
			names = m
		}
	} else {
		fi, err := os.Stat(spec)
		if err != nil {
			return nil, err
		}
		if !fi.IsDir() {
			return []source{{name: spec, size: fi.Size()}}, nil
		}
		ents, err := os.ReadDir(spec)
		if err != nil {
			return nil, err
		}
		for _, e := range ents {
			if !strings.HasPrefix(e.Name(), ".") {
				names = append(names, filepath.Join(spec, e.Name()))
			}
		}
	}
	var out []source
	empty := 0
	for _, n := range names {
		fi, err := os.Stat(n)
		if err != nil {
			return nil, entryErr(n, err)
		}
		switch {
		case !fi.Mode().IsRegular():
		case fi.Size() == 0:
			// A file of the set that holds nothing (one just rotated in)
			// adds nothing: passed over, not "empty log".
			empty++
		default:
			out = append(out, source{name: n, size: fi.Size()})
		}
	}
	if len(out) == 0 && empty > 0 {
		return nil, &shardkey.UsageError{Msg: fmt.Sprintf("%s: its %d log file(s) are all empty: no statement to read", spec, empty)}
	}
	if len(out) == 0 {
		return nil, shardkey.Errorf(spec, 0, "", "no log files in this directory")
	}
	return out, nil
}

// entryErr is the error of an entry of a --log directory or pattern that
// os.Stat failed on: a symbolic link whose target is gone (a usage error
// naming the link and its target, as for a file that does not exist),
// else the error naming the entry.
func entryErr(name string, err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	if li, lerr := os.Lstat(name); lerr == nil && li.Mode()&os.ModeSymlink != 0 {
		target, _ := os.Readlink(name)
		return &shardkey.UsageError{Msg: fmt.Sprintf("%s: a symbolic link to %s, which cannot be opened (%v): a --log directory or pattern is read whole; remove the link or restore its file", name, target, err)}
	}
	return shardkey.Errorf(name, 0, "", "%v", err)
}

// ordered sorts the files of a rotated set into time order: by the
// timestamp of the first statement each holds (read from its first 8 MiB),
// else by its modification time; ties by name. Rotation names do not
// sort by time (postgresql.log.1 is newer than postgresql.log.2.gz), so
// names only break ties.
//
// A file whose decompressed content is that of another file of the set
// (postgresql.log and the postgresql.log.gz made from it), or the start of
// another's (a copy taken before the log grew), holds only statements the
// other holds: it is left out, with a warning naming both, so that no
// statement is counted twice (see copies).
func ordered(srcs []source, o Options) ([]source, []error, error) {
	if len(srcs) < 2 {
		return srcs, nil, nil
	}
	keys := make([]int64, len(srcs))
	for i := range srcs {
		ts, ok, err := firstTime(&srcs[i], o)
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			fi, err := os.Stat(srcs[i].name)
			if err != nil {
				return nil, nil, err
			}
			ts = fi.ModTime().UnixMicro()
		}
		keys[i] = ts
	}
	idx := make([]int, len(srcs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		ia, ib := idx[a], idx[b]
		if keys[ia] != keys[ib] {
			return keys[ia] < keys[ib]
		}
		return srcs[ia].name < srcs[ib].name
	})
	out := make([]source, len(srcs))
	for i, j := range idx {
		out[i] = srcs[j]
	}
	return copies(out)
}

// copies leaves out of srcs (in time order) each file whose decompressed
// content equals, or is a prefix of, another's, and returns a warning for
// each naming both. Files are compared byte for byte, only when their
// heads say they may be copies (maybeCopy), so a set without copies costs
// nothing more than ordered's probe. Of two identical files the first in
// time order (then by name: postgresql.log before postgresql.log.gz) is
// kept; of a prefix and the whole, the whole.
func copies(srcs []source) ([]source, []error, error) {
	drop := make([]bool, len(srcs))
	var warns []error
	for i := range srcs {
		for j := i + 1; j < len(srcs) && !drop[i]; j++ {
			a, b := &srcs[i], &srcs[j]
			if drop[j] || !maybeCopy(a, b) {
				continue
			}
			rel, n, err := compareContent(a.name, b.name)
			if err != nil {
				return nil, nil, err
			}
			switch rel {
			case same:
				drop[j] = true
				warns = append(warns, shardkey.Errorf(b.name, 0, "", "the same content as %s (decompressed, byte for byte): a copy of the same log, left out so that its statements are not counted twice", a.name))
			case firstPrefix:
				drop[i] = true
				warns = append(warns, shardkey.Errorf(a.name, 0, "", "its content (decompressed) is the first %d bytes of %s: an earlier copy of the same log, left out so that its statements are not counted twice", n, b.name))
			case secondPrefix:
				drop[j] = true
				warns = append(warns, shardkey.Errorf(b.name, 0, "", "its content (decompressed) is the first %d bytes of %s: an earlier copy of the same log, left out so that its statements are not counted twice", n, a.name))
			}
		}
	}
	out := srcs[:0:0]
	for i, s := range srcs {
		if !drop[i] {
			out = append(out, s)
		}
	}
	return out, warns, nil
}

// CopiesAcross returns a usage error when two of logs (--log values, each
// a file, directory or glob; "-" is left out) hold files whose
// decompressed contents are the same log, one equal to or a prefix of the
// other (postgresql.log given once plain and once as postgresql.log.gz):
// its statements would be counted twice. Within one value such a copy is
// left out with a warning (see copies); across values the user named
// both, so both are refused. Problems opening files are left to the
// readers.
func CopiesAcross(logs []string) error {
	if len(logs) < 2 {
		return nil
	}
	type file struct {
		src source
		arg int
	}
	var all []file
	for i, l := range logs {
		if l == "-" {
			continue
		}
		srcs, err := sources(l, nil)
		if err != nil {
			return nil
		}
		for _, s := range srcs {
			if err := fingerprint(&s); err != nil {
				return nil
			}
			all = append(all, file{s, i})
		}
	}
	for i := range all {
		for j := i + 1; j < len(all); j++ {
			a, b := &all[i], &all[j]
			if a.arg == b.arg || !maybeCopy(&a.src, &b.src) {
				continue
			}
			rel, _, err := compareContent(a.src.name, b.src.name)
			if err != nil || rel == differ {
				continue
			}
			what := "the same content (decompressed)"
			if rel != same {
				what = "the same log, one a prefix of the other (decompressed)"
			}
			return &shardkey.UsageError{Msg: fmt.Sprintf("%s and %s hold %s: its statements would be counted twice; give one of them", a.src.name, b.src.name, what)}
		}
	}
	return nil
}

// fingerprint sets s.head and s.headLen from the first headBytes of its
// decompressed content.
func fingerprint(s *source) error {
	r, closeR, err := openDecompressed(s.name)
	if err != nil {
		return err
	}
	defer closeR()
	buf := make([]byte, headBytes)
	n, err := io.ReadFull(r, buf)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return err
	}
	s.setHead(buf[:n])
	return nil
}

// How the contents of two files relate (compareContent).
const (
	differ       = iota
	same         // byte for byte
	firstPrefix  // the first is a proper prefix of the second
	secondPrefix // the second is a proper prefix of the first
)

// compareContent compares the decompressed contents of files a and b and
// returns how they relate and, for a prefix, its length in bytes.
func compareContent(a, b string) (int, int64, error) {
	ra, closeA, err := openDecompressed(a)
	if err != nil {
		return differ, 0, err
	}
	defer closeA()
	rb, closeB, err := openDecompressed(b)
	if err != nil {
		return differ, 0, err
	}
	defer closeB()
	bufA, bufB := make([]byte, 256<<10), make([]byte, 256<<10)
	var n int64
	for {
		na, errA := io.ReadFull(ra, bufA)
		nb, errB := io.ReadFull(rb, bufB)
		if errA != nil && errA != io.EOF && errA != io.ErrUnexpectedEOF {
			return differ, 0, fmt.Errorf("%s: %w", a, errA)
		}
		if errB != nil && errB != io.EOF && errB != io.ErrUnexpectedEOF {
			return differ, 0, fmt.Errorf("%s: %w", b, errB)
		}
		m := min(na, nb)
		if !bytes.Equal(bufA[:m], bufB[:m]) {
			return differ, 0, nil
		}
		n += int64(m)
		endA, endB := na < len(bufA), nb < len(bufB)
		switch {
		case endA && endB && na == nb:
			return same, n, nil
		case endA && na < nb:
			return firstPrefix, n, nil
		case endB && nb < na:
			return secondPrefix, n, nil
		}
	}
}

// openDecompressed opens a file and returns its decompressed content and
// a function that closes both.
func openDecompressed(name string) (io.Reader, func(), error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, nil, err
	}
	dec, closeDec, err := decompress(bufio.NewReaderSize(f, 64<<10), name)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return dec, func() { closeDec(); f.Close() }, nil
}

// errProbeDone stops a probing read at its first timestamp.
var errProbeDone = errors.New("probe done")

// firstTime returns the timestamp of the first timed entry of a file.
func firstTime(s *source, o Options) (int64, bool, error) {
	raw, err := s.open()
	if err != nil {
		return 0, false, err
	}
	defer raw.Close()
	dec, closeDec, err := decompress(bufio.NewReaderSize(raw, 64<<10), s.name)
	if err != nil {
		return 0, false, err
	}
	defer closeDec()
	br := bufio.NewReaderSize(io.LimitReader(dec, 8<<20), 1<<20)
	head, err := br.Peek(headBytes)
	if err != nil && err != io.EOF {
		return 0, false, fmt.Errorf("%s: %w", s.name, err)
	}
	s.setHead(head)
	format, err := formatOf(br, s.name, o.Format, compressionOf(dec))
	if err != nil {
		return 0, false, err
	}
	rs := &readState{file: s.name, probe: true}
	_ = readFormat(format, br, rs) // errors show in the full read
	return rs.firstTS, rs.hasFirst, nil
}

// decompress returns the bytes of r, decompressed when they start with
// the magic number of gzip or zstd (whatever the file is named), and a
// function that releases the decoder. A compressed stream that ends early
// (a truncated file) is an error naming the file, never a short read.
func decompress(r *bufio.Reader, name string) (io.Reader, func(), error) {
	head, _ := r.Peek(4)
	switch {
	case len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b:
		z, err := gzip.NewReader(r)
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			// The file ends inside gzip's header (RFC 1952 2.3: its
			// original name, comment or header CRC missing).
			return nil, nil, fmt.Errorf("%s: gzip stream ends early, inside its header (truncated file?)", name)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%s: gzip: %w", name, err)
		}
		return &decodeErr{r: z, what: "gzip"}, func() { _ = z.Close() }, nil
	case len(head) == 4 && head[0] == 0x28 && head[1] == 0xb5 && head[2] == 0x2f && head[3] == 0xfd:
		z, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(1<<30))
		if err != nil {
			return nil, nil, fmt.Errorf("%s: zstd: %w", name, err)
		}
		return &decodeErr{r: z, what: "zstd"}, z.Close, nil
	}
	return r, func() {}, nil
}

// decodeErr names the compression in a decoder's errors and says what an
// early end means.
type decodeErr struct {
	r    io.Reader
	what string
}

func (d *decodeErr) Read(p []byte) (int, error) {
	n, err := d.r.Read(p)
	if err != nil && err != io.EOF {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			err = fmt.Errorf("%s stream ends early (truncated file?): %w", d.what, err)
		} else {
			err = fmt.Errorf("%s: %w", d.what, err)
		}
	}
	return n, err
}

// compressionOf names the compression dec decodes ("gzip", "zstd"), ""
// for a plain stream.
func compressionOf(dec io.Reader) string {
	if d, ok := dec.(*decodeErr); ok {
		return d.what
	}
	return ""
}

// formatOf returns the canonical name of the given format, or the one
// detected from the first bytes of br. compressed names the compression
// br's bytes were decoded from, "" for none.
func formatOf(br *bufio.Reader, name, format, compressed string) (string, error) {
	if format != "" {
		f, ok := formatAliases[strings.ToLower(format)]
		if !ok {
			return "", &shardkey.UsageError{Msg: fmt.Sprintf("--log-format %q: want one of %s", format, strings.Join(Formats, ", "))}
		}
		return f, nil
	}
	head, err := br.Peek(64 << 10)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return "", errAt(name, 1, err)
	}
	format = detect(head)
	if format == "" {
		if len(bytes.TrimSpace(head)) == 0 {
			// As a --log directory with no log file in it: nothing to
			// read is a usage error (exit 2), not bad input.
			return "", &shardkey.UsageError{Msg: fmt.Sprintf("%s: an empty log (no lines but blank ones): no statement to read", name)}
		}
		// Compressed files are recognised by their first bytes, not by
		// their names (decompress): one named .gz or .zst that reaches
		// here does not start as its name says.
		if compressed != "" {
			return "", shardkey.Errorf(name, 1, "", "%s data, decompressed, but not a log of a known format: want a PostgreSQL log (stderr, csvlog, jsonlog), a pg_stat_statements CSV export, or a MySQL/MariaDB general or slow log (or name it with --log-format)", compressed)
		}
		switch ext := strings.ToLower(filepath.Ext(name)); ext {
		case ".gz", ".gzip":
			return "", shardkey.Errorf(name, 1, "", "not gzip data (named %s, but it does not start with gzip's magic number 1f 8b), nor a log of a known format", ext)
		case ".zst", ".zstd":
			return "", shardkey.Errorf(name, 1, "", "not zstd data (named %s, but it does not start with zstd's magic number 28 b5 2f fd), nor a log of a known format", ext)
		}
		return "", shardkey.Errorf(name, 1, "", "unknown log format: want a PostgreSQL log (stderr, csvlog, jsonlog), a pg_stat_statements CSV export, or a MySQL/MariaDB general or slow log (or name it with --log-format)")
	}
	return format, nil
}

// readFormat runs the reader of one format over br.
func readFormat(format string, br *bufio.Reader, rs *readState) error {
	switch format {
	case "stderr":
		return readPGStderr(br, rs)
	case "csvlog":
		return readPGCSV(br, rs)
	case "jsonlog":
		return readPGJSON(br, rs)
	case "pg_stat_statements":
		return readPGSS(br, rs)
	case "mysql-general":
		return readMySQLGeneral(br, rs)
	case "mysql-slow":
		return readMySQLSlow(br, rs)
	}
	return fmt.Errorf("unknown log format %q", format)
}
