/**
 * The order in which `serve` starts the requests it has read, and the bound on how long one may wait.
 *
 * A request's work is mostly synchronous, and Node's event loop accepts one new connection per turn (libuv
 * takes one from the listen queue per poll): left alone, a busy server runs the work of every request it has
 * read in each turn, so a new connection waits in the kernel for as many turns as there are connections
 * before it, unseen, longer than any log line says and past its client's timeout. Here one request is
 * started per turn of the event loop, and none while connections are still being accepted, so the sockets are
 * read between any two requests and each request's arrival is seen within one other request's work; requests
 * start in the order they arrived, and one that has waited past the deadline is answered 503 with Retry-After
 * at once instead (the answer costs nothing), as a Zulip server's nginx answers when uWSGI's listen queue is
 * full. Under more load than it can serve, the server answers everyone quickly, most of them "later".
 */

/** Turns passed in a row to accept connections: the connections a burst opens, not an endless stream of them. */
const MAX_ACCEPT_TURNS = 256;

interface Waiting {
  arrived: number;
  resolve(turn: Turn): void;
}

/** A request's turn: how long it waited for it, and whether that was past the deadline (it is then refused). */
export interface Turn {
  waitedMs: number;
  late: boolean;
}

export class StartQueue {
  // No longer than the connections serve holds (one request each at a time): shift() is cheap enough.
  private readonly waiting: Waiting[] = [];
  private scheduled = false;
  /** Connections accepted, and how many of them the last turn had seen (see next). */
  private accepted = 0;
  private seen = 0;
  private idleTurns = 0;
  /** Whether a request was started at once (see turn) since the last turn: that turn then starts none. */
  private startedAtOnce = false;

  constructor(
    private readonly deadlineMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /**
   * Resolves when the request ready now (or at `arrived`, this.now's clock) has its turn, requests taking
   * their turns in the order they arrived. Its work must start as it resolves, before anything else is
   * awaited: the next turn comes once the microtasks have run.
   */
  turn(arrived = this.now()): Promise<Turn> {
    const now = this.startNow(arrived);
    if (now) return Promise.resolve(now);
    return new Promise((resolve) => {
      // In arrival order: a write that stepped out of the line to wait for a checkpoint comes back to its place.
      let at = this.waiting.length;
      while (at > 0 && this.waiting[at - 1]!.arrived > arrived) at--;
      this.waiting.splice(at, 0, { arrived, resolve });
      this.schedule();
    });
  }

  /**
   * The turn of a request ready at `arrived` when an idle server starts it at once, without waiting for the next
   * turn: nothing waits before it, no connection is waiting to be accepted, and no turn is scheduled (one is
   * whenever a request was started since the last, at once or in its turn, and the next starts none: still one
   * a turn). Undefined when it must wait (turn). Its work must start now.
   */
  startNow(arrived = this.now()): Turn | undefined {
    if (this.length || this.scheduled || this.accepted !== this.seen) return undefined;
    const waitedMs = this.now() - arrived;
    const late = waitedMs > this.deadlineMs;
    if (!late) {
      this.startedAtOnce = true;
      this.scheduled = true;
      setImmediate(this.next);
    }
    return { waitedMs, late };
  }

  /** Counts a connection just accepted: the listen queue may hold more, which are taken before the next start. */
  noteConnection(): void {
    this.accepted++;
  }

  /** Requests waiting for their turn. */
  get length(): number {
    return this.waiting.length;
  }

  private schedule(): void {
    if (this.scheduled || !this.length) return;
    this.scheduled = true;
    setImmediate(this.next);
  }

  /**
   * Refuses every request past the deadline (at once: refusing costs nothing), then starts the next one. While
   * the last turn accepted a connection, the turn is passed instead (an empty turn costs microseconds), at most
   * MAX_ACCEPT_TURNS in a row, so that connections waiting to be accepted are taken and read before more work.
   */
  private readonly next = (): void => {
    this.scheduled = false;
    if (this.startedAtOnce) {
      this.startedAtOnce = false;
      this.schedule();
      return;
    }
    if (this.accepted !== this.seen && this.idleTurns < MAX_ACCEPT_TURNS) {
      this.seen = this.accepted;
      this.idleTurns++;
      this.schedule();
      return;
    }
    this.idleTurns = 0;
    const now = this.now();
    for (let job = this.waiting.shift(); job; job = this.waiting.shift()) {
      const waitedMs = now - job.arrived;
      const late = waitedMs > this.deadlineMs;
      job.resolve({ waitedMs, late });
      if (late) continue;
      // The next turn comes even with nobody waiting, to end this one's hold on starting at once.
      this.scheduled = true;
      setImmediate(this.next);
      return;
    }
    this.schedule();
  };
}
