package partition

// enginesA lists the engines of engines_a's owner: redis, cassandra, mongodb,
// kafka, ketama.
var enginesA = []entry{}
