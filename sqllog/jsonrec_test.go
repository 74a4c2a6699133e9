package sqllog

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/shardkey/shardkey"
	"github.com/shardkey/shardkey/internal/loggen"
)

// TestParseJSONRecord: where parseJSONRecord answers, its record is the
// one json.Unmarshal makes of the line; where json.Unmarshal fails, it
// does not answer. The lines: every record of the test jsonlog and of a
// TPC-C jsonlog, and records at the edges of JSON's and encoding/json's
// rules.
func TestParseJSONRecord(t *testing.T) {
	lines := []string{
		`{}`, ` { } `, `{"message":"a"}`, `{"message":"a","message":"b"}`, `{"message":"a","message":null}`,
		`{"Message":"a"}`, `{"MESSAGE":"a"}`, `{"pid":12}`, `{"pid":-12}`, `{"pid":1.5}`, `{"pid":1e3}`,
		`{"pid":01}`, `{"pid":"12"}`, `{"pid":9223372036854775808}`, `{"pid":-}`, `{"pid":null}`,
		`{"message":5}`, `{"message":true}`, `{"other":true,"x":false,"y":null,"z":-0.5e+3}`,
		`{"message":"tab\there \"q\" back\\slash \/ \b\f\n\r"}`, `{"message":"\u00e9"}`, `{"message":"caf` + "\xc3\xa9" + `"}`,
		`{"message":"bad ` + "\xff" + `"}`, `{"message":"ctl ` + "\x01" + `"}`, `{"message":"a\x"}`,
		`{"message":"a"} x`, `{"message":"a",}`, `{"message" "a"}`, `{"message":"a"`, `{"message":"a}`,
		`{"nested":{"a":1},"message":"a"}`, `{"arr":[1,2],"message":"a"}`, `["message"]`, `"x"`, ``,
		"{\"message\":\"a\"}\t\r\n", `{"k\"ey":"a"}`, `{"mess` + "\xc3\xa9" + `":"a"}`,
		`{"timestamp":"2024-03-01 00:00:00.000 UTC","pid":7,"session_id":"65e1.3ff","error_severity":"LOG","message":"statement: SELECT 1","detail":"parameters: $1 = '5'"}`,
		`{"error_severity":"LOG","error_severity":"ERROR"}`, `{"pid":12,"pid":null}`, `{"pid":true}`,
	}
	for _, f := range []string{"testdata/pg-jsonlog.json"} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, strings.Split(string(data), "\n")...)
	}
	var sb strings.Builder
	if _, err := loggen.Write(&sb, loggen.Options{Format: "jsonlog", Bytes: 1 << 20, Seed: 5}); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(strings.NewReader(sb.String()))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	answered := 0
	for _, line := range lines {
		var fast, want jsonRecord
		ok := parseJSONRecord([]byte(line), &fast)
		err := json.Unmarshal([]byte(line), &want)
		switch {
		case ok && err != nil:
			t.Errorf("%q: parsed, but json.Unmarshal says %v", line, err)
		case ok && fast != want:
			t.Errorf("%q: parsed %+v, json.Unmarshal %+v", line, fast, want)
		case ok:
			answered++
		}
	}
	if answered < len(lines)/2 {
		t.Errorf("answered %d of %d lines, want most", answered, len(lines))
	}
}

// TestJSONCutShort: a jsonlog copied while PostgreSQL wrote it ends
// inside its last line. Cut at every byte of that line, the log reads
// without error: the record is read when its object is whole (only the
// newline missing), else left out with a warning naming its line. A line
// cut short in the middle of the file stays an error.
func TestJSONCutShort(t *testing.T) {
	const first = `{"timestamp":"2024-03-01 10:00:00.000 UTC","pid":100,"session_id":"65e1.1","error_severity":"LOG","message":"statement: SELECT * FROM a WHERE id = 1"}` + "\n"
	const last = `{"timestamp":"2024-03-01 10:00:01.000 UTC","pid":101,"session_id":"65e1.2","error_severity":"LOG","message":"statement: SELECT * FROM b WHERE id = 2"}` + "\n"
	for k := 1; k <= len(last); k++ {
		cut := last[:k]
		whole := k >= len(last)-1 // the closing brace is there
		w := &shardkey.Workload{}
		err := Read(context.Background(), w, strings.NewReader(first+cut), "x.json", Options{})
		if err != nil {
			t.Errorf("cut at %d: %v", k, err)
			continue
		}
		want := 1
		if whole {
			want = 2
		}
		if len(w.Ops) != want {
			t.Errorf("cut at %d (%q): %d operations, want %d", k, cut, len(w.Ops), want)
		}
		warned := 0
		for _, wn := range w.Warnings {
			if strings.HasPrefix(wn.Error(), "x.json:2: the log ends inside this record") {
				warned++
			}
		}
		if whole == (warned == 1) || warned > 1 {
			t.Errorf("cut at %d (%q): warnings %q", k, cut, w.Warnings)
		}
	}
	err := Read(context.Background(), &shardkey.Workload{}, strings.NewReader(first+last[:60]+"\n"+last), "x.json", Options{})
	if err == nil || !strings.HasPrefix(err.Error(), "x.json:2: not a jsonlog record: unexpected end of JSON input") {
		t.Errorf("a line cut short in the middle: %v", err)
	}
}
