// Shardkey tells a database team which shard key to choose, from their
// own workload, before they migrate anything.
//
// Usage:
//
//	shardkey COMMAND [flags] [args]
//
// The commands: advise (the main job: candidates generated, scored,
// ranked, explained, fixes proposed), score (the keys you name), demo (a
// built-in scenario from the seed documents), place (where values land on
// a real engine), explain (which shards one SQL statement touches), serve
// (the playground in the browser). `shardkey COMMAND -h` lists a command's
// flags; `shardkey --version` prints the version.
//
// README.md is the tutorial, with worked examples whose output
// doc_test.go checks; testdata/script/*.txtar hold every command's output
// on every built-in scenario and checked-in log (TestScripts; -update
// rewrites them). Exit status: 0 success, 1 bad input (FILE:LINE: FIELD:
// what is wrong), 2 usage error.
//
// This package only parses arguments, calls the library packages and
// renders; see docs/architecture.md.
package main
