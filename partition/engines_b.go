package partition

// enginesB lists the engines of engines_b's owner: postgres, citus,
// elasticsearch, yugabyte, vitess*, cockroachdb.
var enginesB = []entry{}
