//go:build unix

package input

import (
	"os"
	"sync"
	"syscall"
)

// mapFile maps f, a regular file, read-only into memory, or returns nil
// (then the file is read with read calls). unmap releases the mapping.
//
// unmap returns at once and a goroutine releases the mapping: munmap
// takes time in proportion to the pages the reading mapped (about 30 ms
// for seed 000's 90 MB row file, 70 ms for its 186 MB of transactions on
// a loaded machine), and the reader that called it has nothing else to
// run meanwhile. It was the one goroutine running between the row file
// and the statements, and between the last statement file and the
// scores, with the other core idle; released in the background, it
// overlaps the work that follows. Nothing may refer to the mapping once
// unmap is called, as before; waitUnmapped waits for the releases.
// On Linux, release drops the pages first (madvise MADV_DONTNEED, under
// the address space's lock for reading), then unmaps the emptied range:
// munmap holds that lock for writing, so while it dropped the pages the
// other goroutines' page faults and the next file's mmap waited for it
// (an execution trace showed the next file's mmap waiting 24 ms).
func mapFile(f *os.File) (data []byte, unmap func()) {
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() <= 0 || st.Size() != int64(int(st.Size())) {
		return nil, nil
	}
	data, err = syscall.Mmap(int(f.Fd()), 0, int(st.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil
	}
	return data, func() {
		unmapping.Add(1)
		go func() {
			defer unmapping.Done()
			release(data)
		}()
	}
}

// unmapping counts the mappings being released (mapFile's unmap).
var unmapping sync.WaitGroup

// waitUnmapped waits until every mapping unmap was called for is
// released.
func waitUnmapped() { unmapping.Wait() }
