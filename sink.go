package shardkey

// A Sink consumes a workload's operation instances and transactions as a
// reader produces them, instead of the Workload holding them: the
// streaming form of the model, for samples too large to keep (a 186 MB
// transaction file is 4.5 M conditions) or scored once and dropped.
//
// A reader that streams into a Sink parses its input in batches on several
// goroutines. Each goroutine asks NewBatch for a Batch, hands it the batch's
// statements, and the reader then calls Merge with each batch in input
// order, so the merged result does not depend on scheduling. The reader
// still adds the Operations (name, table, kind, rate) to the Workload, just
// without their Instances; ops maps the batch's operation numbers (0, 1, ...
// in order of first use within the batch) to indexes in Workload.Ops.
//
// Conditions, statements and the strings in their values are valid only
// during the call that receives them: a Batch copies what it keeps.
type Sink interface {
	NewBatch() Batch
	Merge(b Batch, ops []int)
}

// Batch receives one batch of statements (see Sink). Its methods are called
// from one goroutine at a time. An error (a key the partition function
// cannot place) stops the reader, which reports it with the file and line.
type Batch interface {
	// Instance is one execution of operation op (a batch-local number)
	// on table (an index in Workload.Tables) with weight w (its requests/s
	// share; the operation's rate is the sum of its instances' weights).
	// sets are an update's SET columns (Instance.Sets), nil if none.
	Instance(op, table int, kind Kind, conds, sets []Cond, w float64) error
	// Txn is one transaction of weight w.
	Txn(stmts []Stmt, w float64) error
}
