/**
 * A connection that keeps the statements it prepares, by their SQL text: preparing one costs more than running
 * it (tens of µs against a few), and the model prepares where it runs, so a `GET /messages` prepared a dozen
 * statements per request and preparing was a fifth of the embedded server's time on everyday requests. A
 * statement is handed out in its plain modes (any `pluck` a caller set is undone) and never while it is being
 * iterated, when a fresh one is prepared instead. Bounded, the least lately used going first: SQL built per
 * request (a list of N placeholders) must not fill the memory.
 */
import Database from 'better-sqlite3';

/** Statements kept per connection at most. */
const KEPT_STATEMENTS = 1000;

export class StatementKeepingDatabase extends Database {
  private readonly kept = new Map<string, Database.Statement>();

  override prepare<BindParameters extends unknown[] | object = unknown[], Result = unknown>(source: string): Database.Statement<BindParameters, Result> {
    let statement = this.kept.get(source);
    if (statement?.busy) return super.prepare<BindParameters, Result>(source);
    if (statement) {
      // Last used now: moved to the end of the map, the far end from what is dropped first.
      this.kept.delete(source);
      if (statement.reader) statement.pluck(false).raw(false).expand(false);
    } else {
      statement = super.prepare(source);
      if (this.kept.size >= KEPT_STATEMENTS) this.kept.delete(this.kept.keys().next().value ?? '');
    }
    this.kept.set(source, statement);
    // The same object better-sqlite3 prepared for this text; its type parameters are the caller's to choose, as with prepare itself.
    return statement as Database.Statement<BindParameters, Result>;
  }
}
