/**
 * A connection that keeps the statements it prepares, by their SQL text: preparing one costs more than running
 * it (tens of µs against a few), and the model prepares where it runs, so a `GET /messages` prepared a dozen
 * statements per request and preparing was a fifth of the embedded server's time on everyday requests. A
 * statement is handed out in its plain mode (any `pluck` a caller set is undone) and never while it is being
 * iterated, when a fresh one is prepared instead. Bounded, the least lately used going first: SQL built per
 * request (a list of N placeholders) must not fill the memory. A reader's rows are made objects from arrays
 * (row-objects.ts).
 */
import Database from 'better-sqlite3';
import { type RowObjects, rowObjects } from './row-objects.js';

/** Statements kept per connection at most. */
const KEPT_STATEMENTS = 1000;

interface Kept {
  statement: Database.Statement;
  /** Puts a reader back in its plain mode (undefined for a writer, which has no modes). */
  rows: RowObjects | undefined;
}

export class StatementKeepingDatabase extends Database {
  private readonly kept = new Map<string, Kept>();

  override prepare<BindParameters extends unknown[] | object = unknown[], Result = unknown>(source: string): Database.Statement<BindParameters, Result> {
    let entry = this.kept.get(source);
    if (entry?.statement.busy) entry = this.made(source);
    else if (entry) {
      // Last used now: moved to the end of the map, the far end from what is dropped first.
      this.kept.delete(source);
      entry.rows?.plain();
      this.kept.set(source, entry);
    } else {
      entry = this.made(source);
      if (this.kept.size >= KEPT_STATEMENTS) this.kept.delete(this.kept.keys().next().value ?? '');
      this.kept.set(source, entry);
    }
    // The same object better-sqlite3 prepared for this text; its type parameters are the caller's to choose, as with prepare itself.
    return entry.statement as Database.Statement<BindParameters, Result>;
  }

  private made(source: string): Kept {
    const statement = super.prepare(source);
    return { statement, rows: statement.reader ? rowObjects(statement) : undefined };
  }
}
