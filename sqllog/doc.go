// Package sqllog reads database query logs into a shardkey.Workload,
// parsing SQL with the engines' own parsers: pg_query (PostgreSQL's parser,
// cgo) for PostgreSQL and Vitess's sqlparser for MySQL and MariaDB.
//
// # Formats
//
//   - stderr: a PostgreSQL server log written to stderr or a log file, with
//     log_statement = 'all' or log_min_duration_statement = 0. Any
//     log_line_prefix works that puts the level ("LOG:  ") after the
//     prefix; set one that names the session and the time, e.g.
//
//     log_line_prefix = '%m [%p] %q%u@%d '
//
//     Statements are grouped into transactions per session: the prefix
//     must hold %p (process id, in brackets as "[%p]" or as "pid=%p") or
//     %c (session id); without either, the whole log is one session.
//     Rates need %m, %t or %n. Messages must be in English (lc_messages).
//
//   - csvlog and jsonlog (PostgreSQL 15+): log_destination = 'csvlog' or
//     'jsonlog' with logging_collector = on; session and time come from
//     the record, whatever the prefix.
//
//   - pg_stat_statements: a CSV export with a header naming at least query
//     and calls, e.g.
//     \copy (SELECT query, calls FROM pg_stat_statements) TO 'pgss.csv' CSV HEADER
//     It gives shapes and call counts but no values: each $n is a value
//     drawn from the table's row sample (--rows) when there is one, so
//     the skew comes from the rows, else a uniformly spread unknown value.
//     Rates are the call counts (the export holds no period).
//
//   - mysql-general: the MySQL or MariaDB general query log
//     (general_log = ON, log_output = FILE). Query and Execute lines are
//     statements (an Execute line holds a prepared statement's values);
//     the connection id is the session.
//
//   - mysql-slow: the slow query log with long_query_time = 0.
//
// With log_statement = 'all' and the extended query protocol, PostgreSQL
// logs "execute <name>: SELECT ... $1" followed by "DETAIL:  parameters: $1
// = '42'"; the values are bound to the placeholders. With
// log_min_duration_statement = 0 the parse and bind lines are skipped and
// the execute line counted. Multi-line statements are read whole in every
// format.
//
// A log copied while the server was writing it may end inside its last
// record. Such a record is left out with a warning naming the file and
// its line, in every format: a stderr, MySQL general or slow log whose
// last line has no newline (a server ends every line with one) leaves its
// last statement out ("... FROM item" cut to "... FROM i" would read as a
// table i); a csvlog record whose quoted field is still
// open at the end of the file, or which lacks its newline and is not a
// whole record (fewer than 22 fields, no level or time), and a jsonlog
// line without its newline whose object is not closed, are left out as
// cut. (A csvlog record is recognised as cut only when the rest of the
// file, from its start, fits the reader's 1 MiB buffer; a longer one is
// an error.) The same faults before the last record are errors naming
// the record's first line.
//
// # What a statement becomes
//
// Each table a statement touches is one operation instance: its kind
// (read, insert, update, delete), and the columns it binds with =, IN,
// BETWEEN, <, <=, >, >= to literal or bound values. Row values bind each
// column ((a, b) = (1, 2); (a, b) IN ((1, 2), (3, 4)) gives a IN (1, 3)
// and b IN (2, 4)). A multi-row INSERT is one insert instance a row (each
// row's values counted, and the row sample and monotonicity read from
// them) and one request: its first row counts it, the other rows ride as
// its parts (shardkey.Instance.Parts, Rider), so that requests/s are the
// statements sent and its fan-out the union of its rows' shards, each row
// a unit of work on its own shard (the engines send it so: Vitess splits
// its rows by shard, go/vt/vtgate/engine/insert.go); in its transaction
// it is one statement of its first row and 16 more spaced to its last
// (whether it crosses shards is what the transaction needs of it). A join
// equality carries a bound value to the other table (a JOIN b ON a.x = b.y
// WHERE a.x = 5 binds b.y = 5). In a query over several tables, an
// unqualified column belongs to the table that has it: as the workload's
// tables say (a --from catalog, --rows columns, or earlier statements of
// the log), else as its name says when only one table fits (c_w_id: the
// table with other c_ columns, or customer by its initial), else to the
// first table with a warning naming the statement (see attribute.go). Values the database assigns (DEFAULT,
// now(), nextval, gen_random_uuid()) are fresh values. Instances of one
// shape (table, kind, bound columns and how) are one operation, named as
// shardkey.ShapeName names it.
//
// Rates: an operation's rate is its statement count over the log's time
// span, taken over the whole log: (last timestamp - first timestamp +
// the timestamps' resolution) in seconds, since a statement stamped t
// ran in [t, t + resolution). The resolution is what the timestamps are
// written in, the coarsest of the log's: whole seconds for MySQL and
// MariaDB logs and PostgreSQL's %t (one second added: a log of 5 whole
// seconds spans 5 s, not 4), milliseconds for %m, %n, csvlog and jsonlog.
// A log whose statements all carry one instant of a resolution finer
// than a second has no span: rates are then counts (with a warning).
// A span under MinCovered (1 s, the least part of a window watch takes a
// rate over) is warned of: its rates are an extrapolation; so is a span
// of fewer than 10 of its timestamps' resolution (under 10 s of whole
// seconds: the first and last statements ran anywhere in their seconds,
// so the span, and every rate, is known only to a second either way); so is a span
// mostly idle (stretches of a minute or more with no statement, over
// half of it: rotated files years apart), whose rates average the busy
// stretches with the idle ones; the warning names the span used and the
// statement after the longest stretch.
//
// Timestamps should not go backwards: within a session statements run one
// after another, and sessions' lines, written concurrently, are out of
// order by little. A statement stamped earlier than its session's previous
// one, or more than a second (plus the resolution) behind the latest
// timestamp of the log so far, is counted, and one warning names the first
// (file:line, session, how far back) and how many went back (a clock set
// back, or rotated files read out of order): spans, rates and time windows
// built on them may be off. ReadWindows warns per window of its own.
//
// Transactions: statements are grouped by session between BEGIN (or START
// TRANSACTION) and COMMIT, END or ROLLBACK, or, after SET autocommit = 0,
// until COMMIT or ROLLBACK (read-only blocks included; AND CHAIN opens the
// next at once; ROLLBACK TO SAVEPOINT ends nothing). A transaction ended by
// ROLLBACK (or ABORT) is no committed transaction of the workload: its
// statements did their work and count among the operations, but it
// committed nothing, so it is no cross-shard commit. It is kept in the
// transactions' bounded sample all the same, marked Txn.RolledBack (one
// that spanned shards cost their coordination, a prepare and abort or
// locks held on each): the simulator sums those apart
// (rolled_back_cross_shard_fraction). Workload.RolledBackTxns counts them,
// with a warning at the first one's ROLLBACK. Any other statement that writes
// is a transaction of its own, and any other read is an operation only
// (its fan-out counts among the operations', not among transactions). A session
// that ends (disconnection, Quit) or is still open at the end of the log
// closes its transaction; transactions the log ends inside are counted as
// committed with the statements it holds, with a warning when they are 1%
// or more of the transactions counted (a log copied while the server
// wrote it; a watch window ending mid-log says nothing). Transactions of the same sequence of operations
// share a sampled group whose weights sum to its rate.
//
// # Memory and speed
//
// The log is read as a stream, and memory is bounded whatever its length
// (see bound.go): each operation and transaction shape keeps a seeded
// reservoir sample of Options.Sample instances (4096 by default) with its
// full count, within budgets over all shapes of 262,144 operation
// instances and 131,072 statements of sampled transactions (beyond them
// every reservoir is thinned to a common, smaller cap); an idle session's
// open transaction is closed and counted after 8 hours of log time, as
// MySQL's wait_timeout closes an idle connection; at most 65,536 parsed
// statement shapes are cached (those of more than 1 kB of text, up to
// about 64 MB). An IN list of more than 4,096 literal
// values (MaxListValues) is cut to 4,096 values spread evenly over it
// before the statement is parsed (a 10 MB statement of a million values
// would take 650 MB of syntax tree), with a warning per statement shape
// naming the first one's file and line: the statement is routed on the
// values kept, so its shards touched are a lower bound, the whole list's
// when the values kept reach every shard (almost surely under a hash key
// of up to 256 shards: at most S*(1-1/S)^4096 to miss one of S shards),
// and the key statistics count the values kept. An operation's sample
// holds at most 262,144 values in all (64 instances of lists of 4,096;
// fewer instances than Options.Sample only for shapes of more than 64
// values an instance, with a warning). Multi-row INSERT ... VALUES lists
// are not cut (each row is an insert instance). The values every statement binds by
// equality to a column of a table without a row sample are counted, not
// sampled (traffic.go; shardkey.Table.Traffic): exactly up to 65,536
// distinct values a column within a budget of 262,144 over all columns
// (Options.MaxCountedValues; past it the cap per column is halved), the
// rest in a k-minimum-values distinct-count sketch, so that the key
// statistics of a table read only from a log (cardinality, top values,
// entropy; sim.TrafficKeyStats) are the whole log's (past the cap
// estimates, marked so); only the
// monotonicity of inserted values comes from the sample, each kept
// instance numbered in log order (shardkey.Instance.Seq). Files may be gzip or zstd compressed, a
// directory or glob of rotated files, or standard input (ReadFile). One goroutine reads lines and keeps log
// order; a pool of workers parses SQL; one goroutine aggregates the parsed
// statements in log order and another, after it, counts their values. Each statement's literals are
// replaced by placeholders first (normalize), so each distinct shape is
// parsed once by the real parser and later statements only bind values.
//
// Statements that do not parse are counted and listed by shape in a
// warning (Workload.Warnings); they never stop reading. A file that is not
// a log of the format is an error naming file and line.
package sqllog
