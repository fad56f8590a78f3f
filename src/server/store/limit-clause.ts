/**
 * A LIMIT written into a statement's text, never bound. SQLite (3.53, as better-sqlite3 builds it) reads a bound
 * LIMIT's value while planning the statement (sqlite3ExprIsInteger), which marks the statement to be planned
 * again whenever its parameters are bound anew, that is at every run: in `serve`, the change log's read and
 * GET /messages' range were parsed and planned afresh at each request, about 80 µs of a 1.1 ms answer (seen
 * with `perf`, under sqlite3Reprepare). Kept statements (kept-statements.ts) then hold one text per count;
 * the counts are few (constants, and the page sizes clients ask for, each bounded).
 */
export function limitClause(rows: number): string {
  if (!Number.isSafeInteger(rows) || rows < 0) throw new RangeError(`not a count of rows: ${rows}`);
  return `LIMIT ${rows}`;
}
