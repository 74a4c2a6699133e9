package sqllog

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/shardkey/shardkey"
)

// noWarnings is summary without its warning lines (they name files and
// lines, which differ between a log and its pieces).
func noWarnings(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if !strings.HasPrefix(l, "warning: ") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func gz(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	z := gzip.NewWriter(&buf)
	if _, err := z.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func zst(t *testing.T, b []byte) []byte {
	t.Helper()
	z, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	return z.EncodeAll(b, nil)
}

func write(t *testing.T, file string, b []byte) {
	t.Helper()
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCompressed: a log compressed with gzip or zstd reads as the log
// itself (same tables, operations, instances and transactions), whatever
// the file is named.
func TestCompressed(t *testing.T) {
	dir := t.TempDir()
	for _, lf := range logFiles {
		plain, err := os.ReadFile(filepath.Join("testdata", lf.file))
		if err != nil {
			t.Fatal(err)
		}
		want := noWarnings(summary(readLog(t, filepath.Join("testdata", lf.file), Options{})))
		for name, b := range map[string][]byte{lf.file + ".gz": gz(t, plain), lf.file + ".zst": zst(t, plain), lf.file + ".1": gz(t, plain)} {
			f := filepath.Join(dir, name)
			write(t, f, b)
			if got := noWarnings(summary(readLog(t, f, Options{}))); got != want {
				t.Errorf("%s: differs from the plain log:\n%s\nwant\n%s", name, got, want)
			}
		}
	}
}

// TestTruncatedCompressed: a compressed log cut short is an error naming
// the file and saying it ends early, not a partial workload.
func TestTruncatedCompressed(t *testing.T) {
	plain, err := os.ReadFile(filepath.Join("testdata", "pg-stderr.log"))
	if err != nil {
		t.Fatal(err)
	}
	// gzip(1) writes the file's name into the header (RFC 1952 FNAME):
	// a cut inside it ended the header early, which read as "gzip: EOF".
	var named bytes.Buffer
	z := gzip.NewWriter(&named)
	z.Name = "pg-stderr.log"
	if _, err := z.Write(plain); err != nil {
		t.Fatal(err)
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for name, b := range map[string][]byte{"cut.log.gz": gz(t, plain), "named.log.gz": named.Bytes(), "cut.log.zst": zst(t, plain)} {
		// Cut inside the header (from just past the magic number), at
		// its end, in the first block, and two thirds through.
		cuts := []int{len(b) * 2 / 3}
		for n := 4; n <= 40; n++ {
			cuts = append(cuts, n)
		}
		for _, n := range cuts {
			f := filepath.Join(dir, fmt.Sprint(n, "-", name))
			write(t, f, b[:n])
			w := &shardkey.Workload{}
			err := ReadFile(context.Background(), w, f, Options{})
			if err == nil {
				t.Errorf("%s cut at %d bytes: no error reading a truncated file (%d ops read)", name, n, len(w.Ops))
				continue
			}
			if msg := err.Error(); !strings.Contains(msg, f) || !strings.Contains(msg, "ends early") {
				t.Errorf("%s cut at %d bytes: error %q should name the file and say the stream ends early", name, n, msg)
			}
		}
	}
}

// splitMessages cuts a PostgreSQL stderr log into n pieces at message
// starts (lines that do not continue a statement), in order.
func splitMessages(text string, n int) []string {
	lines := strings.SplitAfter(text, "\n")
	var pieces []string
	start := 0
	for k := 1; k < n; k++ {
		i := len(lines) * k / n
		for i < len(lines) && strings.HasPrefix(lines[i], "\t") {
			i++
		}
		pieces = append(pieces, strings.Join(lines[start:i], ""))
		start = i
	}
	return append(pieces, strings.Join(lines[start:], ""))
}

// TestRotatedSet: a rotated set (logrotate's names: the live file newest,
// .1 older, .2.gz oldest, so name order is not time order) given as a
// directory or a glob reads as the whole log: the pieces in time order,
// sessions and open transactions continuing across files.
func TestRotatedSet(t *testing.T) {
	plain, err := os.ReadFile(filepath.Join("testdata", "pg-stderr.log"))
	if err != nil {
		t.Fatal(err)
	}
	want := noWarnings(summary(readLog(t, filepath.Join("testdata", "pg-stderr.log"), Options{})))
	p := splitMessages(string(plain), 3)
	dir := t.TempDir()
	write(t, filepath.Join(dir, "postgresql.log.2.gz"), gz(t, []byte(p[0])))
	write(t, filepath.Join(dir, "postgresql.log.1"), []byte(p[1]))
	write(t, filepath.Join(dir, "postgresql.log"), []byte(p[2]))
	srcs, err := sources(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	srcs, _, err = ordered(srcs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range srcs {
		names = append(names, filepath.Base(s.name))
	}
	if got := strings.Join(names, " "); got != "postgresql.log.2.gz postgresql.log.1 postgresql.log" {
		t.Errorf("time order: %s", got)
	}
	for _, spec := range []string{dir, filepath.Join(dir, "postgresql.log*")} {
		if got := noWarnings(summary(readLog(t, spec, Options{}))); got != want {
			t.Errorf("%s: differs from the whole log:\n%s\nwant\n%s", spec, got, want)
		}
	}
	// A log that keeps two formats (stderr and csvlog) in one directory is
	// not one log: an error, not statements counted twice.
	csv, err := os.ReadFile(filepath.Join("testdata", "pg-csvlog.csv"))
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "postgresql.csv"), csv)
	err = ReadFile(context.Background(), &shardkey.Workload{}, dir, Options{})
	if err == nil || !strings.Contains(err.Error(), "one --log reads one log") {
		t.Errorf("mixed formats in a directory: error %v", err)
	}
	if err := ReadFile(context.Background(), &shardkey.Workload{}, filepath.Join(dir, "nothing*"), Options{}); err == nil || !strings.Contains(err.Error(), "no files match") {
		t.Errorf("a pattern that matches nothing: error %v", err)
	}
}

// TestCopiesInSet: a directory or glob that holds a log and its
// compressed copy (postgresql.log and postgresql.log.gz, or a rotated
// postgresql.log.1 and postgresql.log.1.zst), or an earlier copy that is a
// prefix of the log, reads as the log alone: every statement once, not
// twice, with a warning naming both files. Without the check the rates
// were doubled.
func TestCopiesInSet(t *testing.T) {
	plain, err := os.ReadFile(filepath.Join("testdata", "pg-stderr.log"))
	if err != nil {
		t.Fatal(err)
	}
	want := noWarnings(summary(readLog(t, filepath.Join("testdata", "pg-stderr.log"), Options{})))

	dir := t.TempDir()
	write(t, filepath.Join(dir, "postgresql.log"), plain)
	write(t, filepath.Join(dir, "postgresql.log.gz"), gz(t, plain))
	for _, spec := range []string{dir, filepath.Join(dir, "postgresql.log*")} {
		w := readLog(t, spec, Options{})
		if got := noWarnings(summary(w)); got != want {
			t.Errorf("%s: differs from the log read once:\n%s\nwant\n%s", spec, got, want)
		}
		if !hasWarning(w, filepath.Join(dir, "postgresql.log.gz")+": the same content as "+filepath.Join(dir, "postgresql.log")) {
			t.Errorf("%s: no warning naming both copies: %v", spec, w.Warnings)
		}
	}

	// A rotated set whose older piece is there twice, plain and zstd,
	// reads as the set without the copy.
	p := splitMessages(string(plain), 2)
	dir = t.TempDir()
	write(t, filepath.Join(dir, "postgresql.log.1"), []byte(p[0]))
	write(t, filepath.Join(dir, "postgresql.log"), []byte(p[1]))
	set := noWarnings(summary(readLog(t, dir, Options{})))
	write(t, filepath.Join(dir, "postgresql.log.1.zst"), zst(t, []byte(p[0])))
	if got := noWarnings(summary(readLog(t, dir, Options{}))); got != set {
		t.Errorf("rotated set with a copy: differs from the set without it:\n%s\nwant\n%s", got, set)
	}

	// An earlier copy (5 times the log, 65,740 bytes, more than the
	// 64 KiB hashed) of a log that grew since (6 times): the copy's
	// statements are all in the log.
	whole := bytes.Repeat(plain, 6)
	dir = t.TempDir()
	write(t, filepath.Join(dir, "big.log"), whole)
	want = noWarnings(summary(readLog(t, filepath.Join(dir, "big.log"), Options{})))
	write(t, filepath.Join(dir, "backup.log.gz"), gz(t, bytes.Repeat(plain, 5)))
	w := readLog(t, dir, Options{})
	if got := noWarnings(summary(w)); got != want {
		t.Errorf("prefix copy: differs from the log read once:\n%s\nwant\n%s", got, want)
	}
	if !hasWarning(w, filepath.Join(dir, "backup.log.gz")+": its content (decompressed) is the first 65740 bytes of "+filepath.Join(dir, "big.log")) {
		t.Errorf("prefix copy: no warning naming both files: %v", w.Warnings)
	}

	// The same under 64 KiB: a copy of the log (13,148 bytes) that grew
	// to twice its size (26,296): both are whole in their heads, of
	// different lengths, and the copy is still found.
	dir = t.TempDir()
	write(t, filepath.Join(dir, "small.log"), bytes.Repeat(plain, 2))
	want = noWarnings(summary(readLog(t, filepath.Join(dir, "small.log"), Options{})))
	write(t, filepath.Join(dir, "backup.log"), plain)
	w = readLog(t, dir, Options{})
	if got := noWarnings(summary(w)); got != want {
		t.Errorf("short prefix copy: differs from the log read once:\n%s\nwant\n%s", got, want)
	}
	if !hasWarning(w, filepath.Join(dir, "backup.log")+": its content (decompressed) is the first 13148 bytes of "+filepath.Join(dir, "small.log")) {
		t.Errorf("short prefix copy: no warning naming both files: %v", w.Warnings)
	}

	// Two pieces that differ are both read: the log twice over (not a
	// copy: its second half differs) reads as more than the log.
	dir = t.TempDir()
	write(t, filepath.Join(dir, "a.log"), plain)
	write(t, filepath.Join(dir, "b.log"), append(bytes.Repeat(plain, 1), plain[:len(plain)/2]...))
	if got := noWarnings(summary(readLog(t, dir, Options{}))); got == want {
		t.Errorf("two different files read as one")
	}
}

func hasWarning(w *shardkey.Workload, prefix string) bool {
	for _, e := range w.Warnings {
		if strings.HasPrefix(e.Error(), prefix) {
			return true
		}
	}
	return false
}

// TestStdin: "-" reads Options.Stdin, compressed or not.
func TestStdin(t *testing.T) {
	plain, err := os.ReadFile(filepath.Join("testdata", "mariadb-general.log"))
	if err != nil {
		t.Fatal(err)
	}
	want := noWarnings(summary(readLog(t, filepath.Join("testdata", "mariadb-general.log"), Options{})))
	for _, b := range [][]byte{plain, zst(t, plain)} {
		w := &shardkey.Workload{}
		if err := ReadFile(context.Background(), w, "-", Options{Stdin: bytes.NewReader(b)}); err != nil {
			t.Fatal(err)
		}
		if got := noWarnings(summary(w)); got != want {
			t.Errorf("standard input differs from the file:\n%s\nwant\n%s", got, want)
		}
	}
}
