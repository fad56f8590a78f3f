/**
 * What a command says when the process must end at once: a second Ctrl-C, or a command still running when
 * the grace period after the first is over. Only the command knows what it had done by then (the rows of
 * a bulk run already done, in flight and not started), so it registers a function that says so, and the
 * entry point calls it, synchronously, just before exiting.
 */
export class LastWords {
  private readonly sayers = new Set<() => void>();

  /** Registers `say` until the returned function is called (the command finished and said it itself). */
  add(say: () => void): () => void {
    this.sayers.add(say);
    return () => this.sayers.delete(say);
  }

  /** Calls every registered function once; one that throws does not keep the others from speaking. */
  say(): void {
    const sayers = [...this.sayers];
    this.sayers.clear();
    for (const say of sayers) {
      try {
        say();
      } catch {
        // The process is exiting; what could not be said is lost either way.
      }
    }
  }
}
