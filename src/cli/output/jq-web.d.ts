/** jq-web ships no types: the part of its API chatctl uses. */
declare module 'jq-web' {
  /** jq's failure: its exit code (3 for a compile error, 5 for a runtime error) and what it wrote on stderr. */
  interface JqError extends Error {
    exitCode?: number;
    stderr?: string;
  }
  interface Jq {
    /**
     * Runs jq with `flags` and `filter` over `input` (JSON text, any number of values); returns its stdout,
     * or undefined when the program printed nothing (`empty`, a `select` that matched no input).
     */
    raw(input: string, filter: string, flags?: readonly string[]): string | undefined;
  }
  /** The module is a promise of the engine, settled once its WebAssembly is compiled. */
  const ready: Promise<Jq>;
  export = ready;
}
