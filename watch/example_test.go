package watch_test

import (
	"fmt"

	"github.com/shardkey/shardkey/watch"
)

// A Space-Saving sketch with room for two keys: "c" arrives when both
// counters are taken, replaces the smaller ("b", 2) and inherits its count
// as its error, so its count 2+1 = 3 is an upper bound and 3-2 = 1 the
// lower bound of its true weight.
func ExampleTopK() {
	tk := watch.NewTopK(2)
	for _, k := range []string{"a", "a", "a", "b", "b", "c"} {
		tk.Add(k, 1)
	}
	for _, c := range tk.Top(2) {
		fmt.Printf("%s: %v..%v of %v\n", c.Key, c.Count-c.Err, c.Count, tk.Total)
	}
	// Output:
	// a: 3..3 of 6
	// c: 1..3 of 6
}
