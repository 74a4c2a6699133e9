//go:build !amd64 || purego

package partition

// useBlake4 is false where blake4AVX2 has no assembly: Point4 and
// PointInt64x4 hash one key at a time.
const useBlake4 = false

func blake4AVX2(m *[16][4]uint64, t *[4]uint64, out *[4]uint64) {
	panic("partition: blake4AVX2 without its assembly")
}
