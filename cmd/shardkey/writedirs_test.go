package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteDirectoriesRoundTrip: TPC-C (scenario/benchmarks/tpcc.yaml)
// under --engine citus: 8 warehouses of equal traffic on 8 shards, which
// Citus's hash places two to a shard on some shards, so the advice's
// place-values fix names the design directory(w_id, w_id-placement.csv);
// item:replicate. Before, that file was never written and the map was in
// the fix's prose only. Now the fix carries it ("placement", "directory_
// file" in JSON), --write-directories writes it in directory()'s format,
// and scoring the named design from that file gives the fix's figures.
//
// Hand-worked: 8 values on 8 shards, placed heaviest first each on the
// least loaded shard, get a shard each: the 8 shards 0..7, each once.
// Every operation asks one shard (item replicated: a read asks one), so
// the work is the sum of the rates, 3 x 450 + 3 x 45 + 3 x 43 + 4 + 40 + 4
// = 1,662/s, a mean of 1,662 / 8 = 207.75/s a shard; with one warehouse a
// shard the busiest is one warehouse's share, near the mean: at least
// 207.75/s and, the warehouses' traffic equal in the workload (uniform
// w_id), within 5% of it.
func TestWriteDirectoriesRoundTrip(t *testing.T) {
	dir := t.TempDir()
	wl := "../../scenario/benchmarks/tpcc.yaml"
	code, out, errs := runCmd(t, "", "advise", "--workload", wl, "--engine", "citus", "--format", "json",
		"--bootstrap", "0", "--sweep", "", "--write-directories", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var adv struct {
		Candidates []struct {
			Key   string `json:"key"`
			Fixes []struct {
				Kind          string `json:"kind"`
				Key           string `json:"key"`
				DirectoryFile string `json:"directory_file"`
				Placement     []struct {
					Value string `json:"value"`
					Shard int    `json:"shard"`
				} `json:"placement"`
				After struct {
					MaxShardWork float64 `json:"max_shard_work"`
					WorkRatio    float64 `json:"work_ratio"`
					WorkPerS     float64 `json:"work_per_s"`
				} `json:"after"`
			} `json:"fixes"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal([]byte(out), &adv); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range adv.Candidates[0].Fixes {
		if f.Kind != "place-values" {
			continue
		}
		found = true
		if f.DirectoryFile != "w_id-placement.csv" || f.Key != "directory(w_id, w_id-placement.csv); item:replicate" {
			t.Fatalf("fix names %q in %q; want w_id-placement.csv in directory(w_id, w_id-placement.csv); item:replicate", f.DirectoryFile, f.Key)
		}
		seen := map[int]bool{}
		for i, p := range f.Placement {
			if want := []string{"1", "2", "3", "4", "5", "6", "7", "8"}; i >= len(want) || p.Value != want[i] {
				t.Errorf("placement[%d] value %q; want w_id 1..8 in order", i, p.Value)
			}
			if p.Shard < 0 || p.Shard > 7 || seen[p.Shard] {
				t.Errorf("w_id %s on shard %d: want each value a shard of its own among 0..7", p.Value, p.Shard)
			}
			seen[p.Shard] = true
		}
		if len(f.Placement) != 8 {
			t.Errorf("placement of %d values; want 8", len(f.Placement))
		}
		if got := f.After.WorkPerS; got < 1662-1e-6 || got > 1662+1e-6 {
			t.Errorf("work after the fix %v/s; want 1,662/s", got)
		}
		if got := f.After.MaxShardWork; got < 207.75-1e-9 || got > 207.75*1.05 {
			t.Errorf("busiest shard after the fix %v/s; want between the mean 207.75/s and 5%% above", got)
		}
		path := filepath.Join(dir, f.DirectoryFile)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("--write-directories wrote no %s: %v (stderr: %s)", path, err, errs)
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		if len(lines) != 9 || lines[0] != "w_id,shard" {
			t.Errorf("%s: %q; want the header w_id,shard and 8 lines value,shard", path, b)
		}
		if !strings.Contains(errs, "wrote "+path) {
			t.Errorf("standard error does not say it wrote %s:\n%s", path, errs)
		}
		// The design the fix names, scored from the written file.
		key := strings.Replace(f.Key, f.DirectoryFile, path, 1)
		code, sout, serrs := runCmd(t, "", "score", "--workload", wl, "--engine", "citus", "--format", "json", "-k", key)
		if code != 0 {
			t.Fatalf("score -k %q: exit %d: %s", key, code, serrs)
		}
		var sc struct {
			Candidates []struct {
				MaxShardWork float64 `json:"max_shard_work"`
				WorkRatio    float64 `json:"work_ratio"`
				WorkPerS     float64 `json:"work_per_s"`
			} `json:"candidates"`
		}
		if err := json.Unmarshal([]byte(sout), &sc); err != nil {
			t.Fatal(err)
		}
		c := sc.Candidates[0]
		if c.MaxShardWork != f.After.MaxShardWork || c.WorkRatio != f.After.WorkRatio || c.WorkPerS != f.After.WorkPerS {
			t.Errorf("score -k %q: busiest %v/s, %vx, work %v/s; the fix's figures %v/s, %vx, %v/s", key,
				c.MaxShardWork, c.WorkRatio, c.WorkPerS, f.After.MaxShardWork, f.After.WorkRatio, f.After.WorkPerS)
		}
	}
	if !found {
		t.Fatalf("no place-values fix for %s", adv.Candidates[0].Key)
	}
}

// TestWriteDirectoriesCommand: the re-score command --write-directories
// prints, run as printed, succeeds and gives the fix's figures: it names
// the advice's inputs, --engine and --shards (or --slots and --nodes), not
// the bare "shardkey score -k ..." it printed, which had no workload to
// score (and under another engine or shard count would have scored
// another placement). TPC-C under Citus, on 8 shards and on 16 slots over
// 4 nodes: each fix's after figures are the command's score.
func TestWriteDirectoriesCommand(t *testing.T) {
	wl := "../../scenario/benchmarks/tpcc.yaml"
	for _, extra := range [][]string{nil, {"--slots", "16", "--nodes", "4"}} {
		dir := t.TempDir()
		args := append([]string{"advise", "--workload", wl, "--engine", "citus", "--format", "json",
			"--bootstrap", "0", "--sweep", "", "--write-directories", dir}, extra...)
		code, out, errs := runCmd(t, "", args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		var adv struct {
			Candidates []struct {
				Fixes []struct {
					Key   string `json:"key"`
					After struct {
						MaxShardWork float64 `json:"max_shard_work"`
						WorkPerS     float64 `json:"work_per_s"`
					} `json:"after"`
				} `json:"fixes"`
			} `json:"candidates"`
		}
		if err := json.Unmarshal([]byte(out), &adv); err != nil {
			t.Fatal(err)
		}
		after := map[string][2]float64{}
		for _, c := range adv.Candidates {
			for _, f := range c.Fixes {
				after[f.Key] = [2]float64{f.After.MaxShardWork, f.After.WorkPerS}
			}
		}
		n := 0
		for _, line := range strings.Split(errs, "\n") {
			_, cmd, ok := strings.Cut(line, "; re-score it with: ")
			if !ok {
				continue
			}
			n++
			words := shellWords(cmd) // doc_test.go's
			if len(words) < 3 || words[0] != "shardkey" || words[1] != "score" {
				t.Fatalf("printed command %q: want shardkey score ...", cmd)
			}
			code, sout, serrs := runCmd(t, "", append(words[1:], "--format", "json")...)
			if code != 0 {
				t.Fatalf("%v: printed command %q: exit %d: %s", extra, cmd, code, serrs)
			}
			var sc struct {
				Candidates []struct {
					MaxShardWork float64 `json:"max_shard_work"`
					WorkPerS     float64 `json:"work_per_s"`
				} `json:"candidates"`
			}
			if err := json.Unmarshal([]byte(sout), &sc); err != nil {
				t.Fatal(err)
			}
			// The fix's key names the file as written, relative to DIR.
			_, fixKey, _ := strings.Cut(line, "fix (")
			fixKey, _, _ = strings.Cut(fixKey, "); re-score it with: ")
			want, ok := after[fixKey]
			if !ok {
				t.Fatalf("no fix %q in the advice", fixKey)
			}
			if got := sc.Candidates[0]; got.MaxShardWork != want[0] || got.WorkPerS != want[1] {
				t.Errorf("%v: %q: busiest %v/s, work %v/s; the fix's %v/s, %v/s", extra, cmd, got.MaxShardWork, got.WorkPerS, want[0], want[1])
			}
		}
		if n == 0 {
			t.Fatalf("%v: no re-score command printed:\n%s", extra, errs)
		}
	}
}

// TestWriteDirectoriesNothing: when no proposed design names a directory
// file (social: no place-values fix), --write-directories makes nothing
// (it left an empty directory behind) and says so on standard error.
func TestWriteDirectoriesNothing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "maps")
	code, _, errs := runCmd(t, "", "advise", "social", "--bootstrap", "0", "--sweep", "", "--write-directories", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("%s: %v; want it not created", dir, err)
	}
	if want := "--write-directories: no proposed design names a directory file: nothing written, " + dir + " not created\n"; !strings.Contains(errs, want) {
		t.Errorf("stderr %q; want %q", errs, want)
	}
}
