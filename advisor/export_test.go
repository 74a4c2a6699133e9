package advisor

// RoomTarget and RoomK expose the node search's bucket sizing to the
// external tests (bucketnodes_test.go).
var (
	RoomTarget = roomTarget
	RoomK      = roomK
)
