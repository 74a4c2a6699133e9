//go:build !unix

package input

import "os"

// mapFile returns nil: files are read with read calls here.
func mapFile(f *os.File) (data []byte, unmap func()) { return nil, nil }

// waitUnmapped returns at once: nothing is mapped here.
func waitUnmapped() {}
