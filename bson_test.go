package shardkey

import "testing"

// TestBSONTypes checks the text forms of the BSON types round-trip through
// ParseValue, and the forms each accepts.
func TestBSONTypes(t *testing.T) {
	for _, c := range []struct {
		typ       Type
		in, canon string
	}{
		{ObjectID, "5b2be413c06d924ab26ff9ca", "5b2be413c06d924ab26ff9ca"},
		{ObjectID, `ObjectId("5B2BE413C06D924AB26FF9CA")`, "5b2be413c06d924ab26ff9ca"},
		{ObjectID, `{"$oid": "5b2be413c06d924ab26ff9ca"}`, "5b2be413c06d924ab26ff9ca"},
		{Date, "0", "1970-01-01T00:00:00.000Z"},
		{Date, "1704164645123", "2024-01-02T03:04:05.123Z"},
		{Date, "2024-01-02T04:04:05.123+01:00", "2024-01-02T03:04:05.123Z"},
		{Date, `{"$date": "2024-01-02T03:04:05.123Z"}`, "2024-01-02T03:04:05.123Z"},
		{Date, "-1", "1969-12-31T23:59:59.999Z"},
		{Date, "6153737367135073092", "6153737367135073092"},
		{Bool, "TRUE", "true"},
		{Bool, "0", "false"},
		{ExtJSON, `{"a": 1}`, `{"a":{"$numberInt":"1"}}`},
		{ExtJSON, `[1.5, "x"]`, `[{"$numberDouble":"1.5"},"x"]`},
		{ExtJSON, `{"$minKey": 1}`, `{"$minKey":1}`},
		{ExtJSON, `{"$timestamp": {"t": 1, "i": 2}}`, `{"$timestamp":{"t":1,"i":2}}`},
	} {
		v, err := ParseValue(c.in, c.typ)
		if err != nil || v.Type != c.typ || v.String() != c.canon {
			t.Errorf("ParseValue(%q, %s) = %s %q, %v; want %q", c.in, c.typ, v.Type, v, err, c.canon)
			continue
		}
		if back, err := ParseValue(v.String(), c.typ); err != nil || back != v {
			t.Errorf("%s %q does not round-trip: %v, %v", c.typ, v, back, err)
		}
	}
	for _, c := range []struct {
		typ Type
		in  string
	}{
		{ObjectID, "5b2be413c06d924ab26ff9c"}, {ObjectID, "zz2be413c06d924ab26ff9ca"}, {ObjectID, `{"$oid": 1}`},
		{Date, "yesterday"}, {Date, `{"$oid": "5b2be413c06d924ab26ff9ca"}`},
		{Bool, "yes"}, {ExtJSON, `{"$oid": "x"}`}, {ExtJSON, `1}, {"x": 1`}, {ExtJSON, "{"},
	} {
		if v, err := ParseValue(c.in, c.typ); err == nil {
			t.Errorf("ParseValue(%q, %s) = %v; want an error", c.in, c.typ, v)
		}
	}
	// Extended JSON values with a shardkey type of their own map to it.
	for in, want := range map[string]Value{
		`{"$oid": "000000000000000000000000"}`: {Type: ObjectID, Str: string(make([]byte, 12))},
		`{"$numberLong": "-5"}`:                {Type: Int64, Int: -5},
		`7`:                                    {Type: Int32, Int: 7},
		`"s"`:                                  TextValue("s"),
		`true`:                                 {Type: Bool, Int: 1},
		`{"$date": {"$numberLong": "-2"}}`:     {Type: Date, Int: -2},
		`{"$binary": {"base64": "AAECAwQFBgcICQoLDA0ODw==", "subType": "04"}}`: {Type: UUID, Str: "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f"},
	} {
		v, err := ParseExtJSON(in)
		if err != nil || NativeBSON(v) != want {
			t.Errorf("NativeBSON(ParseExtJSON(%s)) = %v (%v); want %s %v", in, NativeBSON(v), err, want.Type, want)
		}
	}
	// Order: ObjectIds by bytes (creation time first), dates by value.
	a, _ := ParseValue("5b2be413c06d924ab26ff9ca", ObjectID)
	b, _ := ParseValue("5b2be414000000000000000a", ObjectID)
	if Compare(a, b) != -1 || Compare(Value{Type: Date, Int: -1}, Value{Type: Date, Int: 1}) != -1 {
		t.Error("Compare: ObjectIds or dates out of order")
	}
}

// FuzzParseExtJSON checks that any input is parsed or refused without a
// panic, and that what parses round-trips through its canonical text.
func FuzzParseExtJSON(f *testing.F) {
	for _, s := range []string{`{"$oid": "5b2be413c06d924ab26ff9ca"}`, `{"a": [1, {"$numberLong": "2"}]}`,
		`{"$date": "2024-01-02T03:04:05Z"}`, `null`, `"x"`, `{"$regularExpression": {"pattern": "a", "options": "i"}}`,
		`{"$numberDecimal": "1.5E+3"}`, `[[[[]]]]`, `{"$code": "f", "$scope": {}}`, `1e400`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseExtJSON(s)
		if err != nil {
			return
		}
		back, err := ParseExtJSON(v.String())
		if err != nil || back != v {
			t.Fatalf("ParseExtJSON(%q) = %q, which parses back as %q, %v", s, v, back, err)
		}
		_ = NativeBSON(v)
	})
}

func TestParseTypesAndKey(t *testing.T) {
	types, err := ParseTypes("int32, text,objectid")
	if err != nil || len(types) != 3 || types[0] != Int32 || types[1] != Text || types[2] != ObjectID {
		t.Fatalf("ParseTypes = %v, %v", types, err)
	}
	key, err := ParseKey(`[11, "abc", {"$oid": "5b2be413c06d924ab26ff9ca"}]`, types)
	if err != nil || key[0] != (Value{Type: Int32, Int: 11}) || key[1] != TextValue("abc") || key[2].Type != ObjectID || key[2].String() != "5b2be413c06d924ab26ff9ca" {
		t.Fatalf("ParseKey = %v, %v", key, err)
	}
	if key, err := ParseKey(`["11", "null"]`, []Type{Int32, Text}); err != nil || key[0].Int != 11 || key[1] != TextValue("null") {
		t.Errorf(`ParseKey(["11", "null"]) = %v, %v`, key, err)
	}
	for _, bad := range []string{"", "int32,", ",text", "int32,nosuch"} {
		if _, err := ParseTypes(bad); err == nil {
			t.Errorf("ParseTypes(%q) succeeded", bad)
		}
	}
	for _, bad := range []string{`[11]`, `[11, "a", 3]`, `11,abc`, `["x", "a"]`, `[1.5, "a"]`, `{}`} {
		if k, err := ParseKey(bad, []Type{Int32, Text}); err == nil {
			t.Errorf("ParseKey(%q) = %v; want an error", bad, k)
		}
	}
}

// FuzzParseKey checks type lists and composite key values are parsed or
// refused without a panic.
func FuzzParseKey(f *testing.F) {
	f.Add("int32,text", `[11, "abc"]`)
	f.Add("objectid,date,bool,extjson", `["5b2be413c06d924ab26ff9ca", "2024-01-01T00:00:00Z", true, {"a": [1]}]`)
	f.Add("uuid,bytes", `["123e4567-e89b-12d3-a456-426614174000", "00ff"]`)
	f.Fuzz(func(t *testing.T, types, value string) {
		ts, err := ParseTypes(types)
		if err != nil {
			return
		}
		key, err := ParseKey(value, ts)
		if err == nil && len(key) != len(ts) {
			t.Fatalf("ParseKey gave %d values for %d types", len(key), len(ts))
		}
	})
}

// TestToBSON checks that ToBSON and NativeBSON undo each other.
func TestToBSON(t *testing.T) {
	oid, _ := ParseValue("5b2be413c06d924ab26ff9ca", ObjectID)
	for _, v := range []Value{{}, {Type: Int32, Int: -7}, IntValue(1 << 40), FloatValue(2.5), TextValue("héllo"),
		{Type: Bytes, Str: "\x00\x01"}, {Type: UUID, Str: "0123456789abcdef"}, oid, {Type: Date, Int: -1}, {Type: Bool, Int: 1}} {
		b, ok := ToBSON(v)
		if !ok || b.Type != ExtJSON || NativeBSON(b) != v {
			t.Errorf("NativeBSON(ToBSON(%s %v)) = %v (%v)", v.Type, v, NativeBSON(b), ok)
		}
		if back, err := ParseExtJSON(b.String()); err != nil || back != b {
			t.Errorf("%s %v: Extended JSON %s reads back as %v, %v", v.Type, v, b, back, err)
		}
	}
}
