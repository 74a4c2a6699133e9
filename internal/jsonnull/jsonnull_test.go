package jsonnull

import "testing"

// TestNull: the named members become null, the others keep their bytes
// and order; nested members of the same name are not touched.
func TestNull(t *testing.T) {
	in := `{"a":0,"b":[1,2],"c":{"a":0},"d":"<x>","e":0}`
	got, err := Null([]byte(in), "a", "e")
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"a":null,"b":[1,2],"c":{"a":0},"d":"<x>","e":null}`; string(got) != want {
		t.Errorf("got %s; want %s", got, want)
	}
	if got, _ := Null([]byte(in)); string(got) != in {
		t.Errorf("no keys: got %s", got)
	}
	if _, err := Null([]byte(`[1]`), "a"); err == nil {
		t.Error("an array accepted")
	}
}
