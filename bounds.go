package shardkey

import (
	"bytes"
	"fmt"
	"io"
)

// Input bounds. Every input is read with a stated bound on what it may
// make the program hold, so that a wrong or hostile file (/dev/zero, a
// NUL-filled or truncated log, a runaway transaction) is refused with a
// message naming the file and line, never by the kernel's OOM killer.
// README ("Input bounds") lists them with the readers' own.
const (
	// MaxLineBytes bounds one line of a log, a directory file or a
	// streamed CSV, JSONL or spec file: a file without line ends
	// (/dev/zero, a binary) stops there.
	MaxLineBytes = 64 << 20
	// MaxRecordBytes bounds one CSV record of a PostgreSQL csvlog or a
	// pg_stat_statements export, which may span lines (a quoted
	// statement): an unterminated quote stops there.
	MaxRecordBytes = 64 << 20
	// MaxSpecBytes bounds a scenario spec file (--workload).
	MaxSpecBytes = 16 << 20
	// MaxDirectoryBytes and MaxDirectoryEntries bound a directory file
	// (directory(col, FILE)): a directory lists the exceptions to a hash,
	// not every key.
	MaxDirectoryBytes   = 64 << 20
	MaxDirectoryEntries = 1_000_000
	// MaxRowFileBytes bounds the CSV row file read whole into memory (and
	// parsed in parallel chunks); a larger one is read record by record,
	// so memory holds the table's typed columns, not the file.
	MaxRowFileBytes = 256 << 20
)

// BoundedReader reads from R and fails with an *InputError naming File
// (and the line) once a line is longer than MaxLine bytes (0: no bound),
// more than Max bytes are read in all (0: no bound), or more than
// MaxRecord bytes are read since the last ResetRecord (0: no bound). What
// says what the file is, for the messages ("directory file").
type BoundedReader struct {
	R                      io.Reader
	File, What             string
	Max                    int64
	MaxLine, MaxRecord     int
	n                      int64 // bytes read
	line                   int   // lines ended so far
	sinceLine, sinceRecord int   // bytes since the last newline, record
	err                    error
}

// Read implements io.Reader.
func (b *BoundedReader) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	k, err := b.R.Read(p)
	chunk := p[:k]
	b.n += int64(k)
	b.sinceRecord += k
	if b.MaxLine <= 0 || b.sinceLine+len(chunk) <= b.MaxLine {
		// No line in chunk can pass MaxLine: count the newlines in one
		// pass instead of finding each (the loop below).
		if last := bytes.LastIndexByte(chunk, '\n'); last >= 0 {
			b.line += bytes.Count(chunk[:last+1], []byte{'\n'})
			b.sinceLine = len(chunk) - last - 1
		} else {
			b.sinceLine += len(chunk)
		}
		chunk = nil
	}
	for len(chunk) > 0 {
		i := bytes.IndexByte(chunk, '\n')
		if i < 0 {
			b.sinceLine += len(chunk)
			break
		}
		if b.sinceLine+i > b.MaxLine && b.MaxLine > 0 {
			b.sinceLine += i
			break
		}
		b.line++
		b.sinceLine = 0
		chunk = chunk[i+1:]
	}
	what := b.What
	if what == "" {
		what = "file"
	}
	switch {
	case b.MaxLine > 0 && b.sinceLine > b.MaxLine:
		b.err = LineTooLong(b.File, b.line+1, b.MaxLine)
	case b.Max > 0 && b.n > b.Max:
		b.err = Errorf(b.File, b.line+1, "", "%s larger than %s, the most read", what, sizeText(b.Max))
	case b.MaxRecord > 0 && b.sinceRecord > b.MaxRecord:
		b.err = Errorf(b.File, b.line+1, "", "a record longer than %s (an unterminated quote?)", sizeText(int64(b.MaxRecord)))
	}
	if b.err != nil {
		return 0, b.err
	}
	return k, err
}

// ResetRecord starts a new record for MaxRecord (call it after each
// record is read; with a buffered reader in between, the bound holds up
// to the buffer's size).
func (b *BoundedReader) ResetRecord() { b.sinceRecord = 0 }

// LineTooLong is the error of a line of file (at line, 1-based) longer
// than max bytes: one message for every reader of lines, the size in
// MiB or KiB when exact (sizeText).
func LineTooLong(file string, line, max int) error {
	return Errorf(file, line, "", "line longer than %s (a binary or NUL-filled file?)", sizeText(int64(max)))
}

// sizeText prints a byte count in MiB or KiB when exact.
func sizeText(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
