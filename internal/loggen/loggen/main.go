// Command loggen writes a TPC-C client's query log of a given size to
// standard output (see package loggen), for benchmarks:
//
//	go run ./internal/loggen/loggen -format stderr -size 1G > tpcc.log
package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/shardkey/shardkey/internal/loggen"
)

func main() {
	format := flag.String("format", "stderr", "log `format`: stderr, csvlog, jsonlog, mysql-general, mysql-slow")
	size := flag.String("size", "100M", "`size` to reach: bytes, or with a K, M or G suffix (powers of 1024)")
	seed := flag.Uint64("seed", 1, "`seed` of every value")
	sessions := flag.Int("sessions", 32, "sessions open at once")
	flag.Parse()
	n, err := parseSize(*size)
	if err != nil {
		fmt.Fprintln(os.Stderr, "loggen:", err)
		os.Exit(2)
	}
	if _, err := loggen.Write(os.Stdout, loggen.Options{Format: *format, Bytes: n, Seed: *seed, Sessions: *sessions}); err != nil {
		fmt.Fprintln(os.Stderr, "loggen:", err)
		os.Exit(1)
	}
}

func parseSize(s string) (int64, error) {
	mul := int64(1)
	switch {
	case strings.HasSuffix(s, "K"):
		mul, s = 1<<10, strings.TrimSuffix(s, "K")
	case strings.HasSuffix(s, "M"):
		mul, s = 1<<20, strings.TrimSuffix(s, "M")
	case strings.HasSuffix(s, "G"):
		mul, s = 1<<30, strings.TrimSuffix(s, "G")
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("-size %q: want a number of bytes, e.g. 10G", s)
	}
	return n * mul, nil
}
