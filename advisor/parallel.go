package advisor

import (
	"runtime"
	"sync"
)

// each calls f(i) for every i in 0..n-1 on up to par goroutines (par <=
// 0: GOMAXPROCS), taking the indexes in increasing order, and returns
// once every call has. f writes its result at index i of a slice of its
// own, so that what the caller reads after does not depend on which
// goroutine ran which i, nor when.
func each(n, par int, f func(i int)) {
	eachOn(n, par, func(_, i int) { f(i) })
}

// eachOn is each, telling f which of the goroutines, 0..par-1, runs it:
// f(g, i) may reuse memory of its own by g, which no other call of f
// runs with at the same time.
func eachOn(n, par int, f func(g, i int)) {
	if par <= 0 {
		par = runtime.GOMAXPROCS(0)
	}
	par = min(par, n)
	if par <= 1 {
		for i := range n {
			f(0, i)
		}
		return
	}
	var mu sync.Mutex
	next := 0
	var wg sync.WaitGroup
	for g := range par {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= n {
					return
				}
				f(g, i)
			}
		}()
	}
	wg.Wait()
}
