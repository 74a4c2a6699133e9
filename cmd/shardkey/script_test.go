package main

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

var update = flag.Bool("update", false, "rewrite the golden output sections of testdata/script/*.txtar")

// TestMain lets the test binary run as the shardkey command inside
// testscript scripts (testscript.Main re-executes it under the name
// "shardkey").
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"shardkey": func() { os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs the CLI scripts in testdata/script: each is a txtar
// archive of shardkey command lines and the exact output they must give
// (golden sections). They hold the output of every command on every
// built-in scenario, benchmark spec and checked-in log byte for byte, so
// that any change of output is a reviewed diff: `go test ./cmd/shardkey
// -run TestScripts -update` rewrites the golden sections, and `git diff`
// shows what changed.
//
// Scripts see the repository's inputs through $REPO (scenario/builtin,
// scenario/benchmarks, sqllog/testdata), copied into the script's work
// directory as in/ so that no absolute path reaches an output.
func TestScripts(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:           filepath.Join("testdata", "script"),
		UpdateScripts: *update,
		Setup: func(e *testscript.Env) error {
			in := filepath.Join(e.WorkDir, "in")
			for _, d := range []string{"scenario/builtin", "scenario/benchmarks", "sqllog/testdata", "watch/testdata", "cmd/shardkey/testdata/mongo"} {
				if err := copyFlat(filepath.Join(root, d), in); err != nil {
					return err
				}
			}
			e.Setenv("NO_COLOR", "1")
			return nil
		},
	})
}

// copyFlat copies the regular files of directory src (not its
// subdirectories) into dst.
func copyFlat(src, dst string) error {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	ents, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}
