package main

import (
	"os"
	"strings"
	"testing"
)

// TestReadmeExamples runs every "$ shardkey ..." example in README.md and
// docs/*.md and checks that the output shown is what the command prints.
// An example may end with a line "..." to show only the start of the
// output. Examples run from the repository root.
func TestReadmeExamples(t *testing.T) {
	files := []string{"../../README.md"}
	for _, f := range []string{"../../docs/engines.md", "../../docs/watch.md"} {
		if _, err := os.Stat(f); err == nil {
			files = append(files, f)
		}
	}
	wd, _ := os.Getwd()
	if err := os.Chdir("../.."); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	n := 0
	for _, file := range files {
		data, err := os.ReadFile(strings.TrimPrefix(file, "../../"))
		if err != nil {
			t.Fatal(err)
		}
		for _, ex := range examples(string(data)) {
			n++
			if strings.ContainsAny(ex.cmd, "|><") {
				continue // examples with pipes or redirections are illustrations
			}
			args := shellWords(strings.TrimPrefix(ex.cmd, "$ shardkey "))
			code, out, errs := runCmd(t, "", args...)
			if code != 0 {
				t.Errorf("%s: %s: exit %d: %s", file, ex.cmd, code, errs)
				continue
			}
			got := strings.Split(strings.TrimRight(out, "\n"), "\n")
			for i, want := range ex.out {
				if want == "..." {
					break
				}
				if i >= len(got) || strings.TrimRight(got[i], " ") != strings.TrimRight(want, " ") {
					g := ""
					if i < len(got) {
						g = got[i]
					}
					t.Errorf("%s: %s: line %d:\n got %q\nwant %q", file, ex.cmd, i+1, g, want)
					break
				}
			}
		}
	}
	if n == 0 {
		t.Error("no examples found in README.md")
	}
}

type example struct {
	cmd string
	out []string
}

// examples returns the "$ shardkey ..." commands of fenced blocks that
// start with one, each with the lines up to the next command or the fence.
func examples(doc string) []example {
	var out []example
	lines := strings.Split(doc, "\n")
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "```") || i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "$ shardkey ") {
			continue
		}
		j := i + 1
		for ; j < len(lines) && !strings.HasPrefix(lines[j], "```"); j++ {
			if strings.HasPrefix(lines[j], "$ shardkey ") {
				out = append(out, example{cmd: lines[j]})
				continue
			}
			ex := &out[len(out)-1]
			ex.out = append(ex.out, lines[j])
		}
		i = j
	}
	for k := range out {
		ex := &out[k]
		for len(ex.out) > 0 && strings.TrimSpace(ex.out[len(ex.out)-1]) == "" {
			ex.out = ex.out[:len(ex.out)-1]
		}
	}
	return out
}

// shellWords splits a command line on blanks, honouring single and double
// quotes (no escapes or expansions: enough for the docs' examples).
func shellWords(s string) []string {
	var out []string
	var cur strings.Builder
	in, quote := false, byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			cur.WriteByte(c)
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == ' ' || c == '\t':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}
