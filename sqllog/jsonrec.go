package sqllog

import (
	"strconv"
	"unicode/utf8"
)

// jsonRecordFields are the keys of a jsonlog record the reader uses.
var jsonRecordFields = [...]string{"timestamp", "pid", "session_id", "error_severity", "message", "detail"}

// parseJSONRecord reads a jsonlog record the way json.Unmarshal reads it
// into a jsonRecord, for the records it is sure of: one flat object
// whose keys are plain ASCII, whose values are strings (with the escapes
// \" \\ \/ \b \f \n \r \t, and valid UTF-8), numbers or literals, with
// the used keys written as the struct tags spell them and holding values
// of their fields' kinds. It returns false for anything else (nested
// values, \u escapes, a key that matches a field only without case, a
// syntax error, ...): the caller then asks json.Unmarshal, which gives
// the answer or the error. encoding/json's rules kept: unknown keys are
// skipped, null leaves a field as it was, a repeated key's last value
// wins.
func parseJSONRecord(line []byte, rec *jsonRecord) bool {
	i := skipJSONSpace(line, 0)
	if i >= len(line) || line[i] != '{' {
		return false
	}
	i = skipJSONSpace(line, i+1)
	if i < len(line) && line[i] == '}' {
		return skipJSONSpace(line, i+1) == len(line)
	}
	for {
		if i >= len(line) || line[i] != '"' {
			return false
		}
		ks := i + 1
		j := ks
		for j < len(line) && line[j] != '"' {
			if c := line[j]; c == '\\' || c < 0x20 || c >= 0x80 {
				return false
			}
			j++
		}
		if j >= len(line) {
			return false
		}
		key := line[ks:j]
		field := -1
		for f, name := range jsonRecordFields {
			if string(key) == name {
				field = f
				break
			}
			if len(key) == len(name) && asciiEqualFold(key, name) {
				return false // json matches keys without case
			}
		}
		i = skipJSONSpace(line, j+1)
		if i >= len(line) || line[i] != ':' {
			return false
		}
		i = skipJSONSpace(line, i+1)
		if i >= len(line) {
			return false
		}
		switch c := line[i]; {
		case c == '"':
			raw, esc, n, ok := jsonString(line[i:])
			if !ok {
				return false
			}
			i += n
			s := func() string {
				if esc {
					return string(unescapeJSON(raw))
				}
				return string(raw)
			}
			switch field {
			case -1:
			case 1:
				return false // a string for pid
			case 0:
				rec.Timestamp = s()
			case 2:
				rec.SessionID = s()
			case 3:
				if lv, ok := pgLevelName(raw); ok && !esc { // no string a record
					rec.Severity = lv
				} else {
					rec.Severity = s()
				}
			case 4:
				rec.Message = s()
			case 5:
				rec.Detail = s()
			}
		case c == '-' || c >= '0' && c <= '9':
			n, integer := jsonNumber(line[i:])
			if n == 0 {
				return false
			}
			switch field {
			case -1:
			case 1:
				if !integer {
					return false
				}
				v, err := strconv.ParseInt(string(line[i:i+n]), 10, 64)
				if err != nil {
					return false
				}
				rec.Pid = v
			default:
				return false // a number for a string
			}
			i += n
		case c == 'n':
			if len(line)-i < 4 || string(line[i:i+4]) != "null" {
				return false
			}
			i += 4 // null leaves the field as it was
		case c == 't' || c == 'f':
			w := "true"
			if c == 'f' {
				w = "false"
			}
			if len(line)-i < len(w) || string(line[i:i+len(w)]) != w || field != -1 {
				return false
			}
			i += len(w)
		default:
			return false
		}
		i = skipJSONSpace(line, i)
		if i >= len(line) {
			return false
		}
		if line[i] == '}' {
			return skipJSONSpace(line, i+1) == len(line)
		}
		if line[i] != ',' {
			return false
		}
		i = skipJSONSpace(line, i+1)
	}
}

func skipJSONSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

func asciiEqualFold(b []byte, s string) bool {
	for i := range b {
		x, y := b[i], s[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// jsonString reads the string at the start of b (at its opening quote):
// its text between the quotes, whether it holds escapes (to decode with
// unescapeJSON), and the length read. ok is false for what
// parseJSONRecord leaves to json.Unmarshal (\u escapes, invalid UTF-8)
// and for invalid strings.
func jsonString(b []byte) (raw []byte, esc bool, n int, ok bool) {
	i := 1
	ascii := true
	for i < len(b) {
		c := b[i]
		switch {
		case c == '"':
			raw = b[1:i]
			if !ascii && !utf8.Valid(raw) {
				return nil, false, 0, false
			}
			return raw, esc, i + 1, true
		case c == '\\':
			if i+1 >= len(b) {
				return nil, false, 0, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			default:
				return nil, false, 0, false // \u and invalid escapes
			}
			esc = true
			i += 2
			continue
		case c < 0x20:
			return nil, false, 0, false
		case c >= 0x80:
			ascii = false
		}
		i++
	}
	return nil, false, 0, false
}

// unescapeJSON decodes the simple escapes jsonString accepts.
func unescapeJSON(raw []byte) []byte {
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		i++
		switch raw[i] {
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		default: // " \ /
			out = append(out, raw[i])
		}
	}
	return out
}

// jsonNumber returns the length of the JSON number at the start of b (0
// when there is none: RFC 8259's grammar, -?(0|[1-9][0-9]*)(.[0-9]+)?
// ([eE][+-]?[0-9]+)?) and whether it is an integer (no fraction or
// exponent).
func jsonNumber(b []byte) (int, bool) {
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		return 0, false
	}
	integer := true
	if i < len(b) && b[i] == '.' {
		integer = false
		i++
		s := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == s {
			return 0, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		integer = false
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		s := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == s {
			return 0, false
		}
	}
	return i, integer
}
