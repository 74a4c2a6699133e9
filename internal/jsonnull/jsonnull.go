// Package jsonnull writes unknown figures as JSON null: the project's
// rule that a figure the input cannot support is unknown, never 0.
package jsonnull

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
)

// Null returns the JSON object b with the values of its top-level
// members named in keys replaced by null; the other members, their order
// and their bytes (escaping, spacing) are unchanged. keys empty: b. An
// error when b is not a JSON object.
func Null(b []byte, keys ...string) ([]byte, error) {
	if len(keys) == 0 {
		return b, nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	tok, err := dec.Token()
	if d, ok := tok.(json.Delim); err != nil || !ok || d != '{' {
		return nil, fmt.Errorf("jsonnull: not a JSON object")
	}
	var out bytes.Buffer
	out.Grow(len(b))
	out.WriteByte('{')
	for n := 0; dec.More(); n++ {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("jsonnull: %w", err)
		}
		key, ok := tok.(string)
		if !ok {
			return nil, fmt.Errorf("jsonnull: member name %v", tok)
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("jsonnull: member %q: %w", key, err)
		}
		if n > 0 {
			out.WriteByte(',')
		}
		kb, err := json.Marshal(key)
		if err != nil {
			return nil, err
		}
		out.Write(kb)
		out.WriteByte(':')
		if slices.Contains(keys, key) {
			out.WriteString("null")
		} else {
			out.Write(raw)
		}
	}
	out.WriteByte('}')
	return out.Bytes(), nil
}

// Unless returns names when unknown is true, else nil: a helper to build
// Null's list, one condition a group of members.
func Unless(known bool, names ...string) []string {
	if known {
		return nil
	}
	return names
}

// Encode writes v as one JSON value without escaping <, > and & (the
// caller's encoder decides that) and without a trailing newline: what a
// MarshalJSON of a plain copy of its type returns before Null.
func Encode(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
