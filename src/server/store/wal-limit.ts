/**
 * How long the write-ahead log may grow before it is emptied, for every process on a data dir: SQLite
 * truncates the file to this when the log starts over (journal_size_limit), and serve's checkpointer
 * empties it past this (checkpointer.ts). A few seconds of the heaviest writing; the log of a busy data dir
 * costs its disk this much at most, whatever the requests.
 */
export const WAL_LIMIT_BYTES = 4 * 1024 * 1024;
