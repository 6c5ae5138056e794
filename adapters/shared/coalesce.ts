/**
 * Single-row inserts started in the same tick, as `Promise.all(rows.map((r) => fastInsert(repo, r)))`
 * starts them, wait for the tick to end and go out as multi-row statements: one round trip per
 * batch instead of one per row, with the same rows and the same per-call results.
 *
 * A batch the server refuses is sent again row by row, so that every call settles as it would have
 * alone: the rows that can go in do, and each failing row rejects with its own statement's error.
 * What differs from separate statements: sequence values the refused batch drew are skipped, the
 * server's `now()` is one value for the batch, and statement-level triggers fire once per batch.
 *
 * Only on PostgreSQL, and only on a pool: a refused statement on a transaction's connection would
 * abort the caller's transaction, and MySQL differs more (a multi-row INSERT outside strict mode
 * turns a NULL for a NOT NULL column into a warning, and its keys follow auto_increment_increment).
 */
import { FastTestDbError } from '../../src/adapter-kit.js';

export interface Coalesced<I, O> {
  /**
   * Queues one row's insert. Rows with the same `shape` (the column set: the statement text but for
   * the row count) and the same `returning` share a batch.
   */
  add(shape: string, returning: boolean, item: I): Promise<O>;
}

export interface CoalesceSend<I, R, O> {
  /** One item alone, as a call without coalescing sends it, with that call's outcome. */
  one(item: I, returning: boolean): Promise<O>;
  /** The statement for two or more items, all of one shape. A rejection means the server refused it: nothing was written. */
  send(items: I[], returning: boolean): Promise<R>;
  /**
   * Each item's outcome from what `send`'s statement returned, in item order. The rows are written
   * by then, so a failure here fails every call of the batch and nothing is sent again.
   */
  finish(items: I[], returning: boolean, result: R): Promise<O[]> | O[];
  /** Most rows one statement of this shape may carry (the engine's bind-parameter limit). */
  limit(item: I): number;
}

interface Waiting<I, O> {
  item: I;
  resolve: (o: O) => void;
  reject: (e: unknown) => void;
}

/**
 * Batch sizes: the limit, then powers of two. Each size is its own prepared statement on every
 * connection, which the server keeps until the connection closes; sizes as they come (any of
 * 2-1,000) would prepare hundreds per shape.
 */
export function batchSizes(count: number, limit: number): number[] {
  const sizes: number[] = [];
  for (let left = count; left > 0; ) {
    let size = limit;
    if (left < limit) for (size = 1; size * 2 <= left; ) size *= 2;
    sizes.push(size);
    left -= size;
  }
  return sizes;
}

/**
 * A function's throw as a rejection: a throw inside the flush would leave every later call waiting.
 * A promise returned passes through as it is (Promise.resolve adds none).
 */
function attempt<T>(fn: () => Promise<T> | T): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (e) {
    return Promise.reject(e);
  }
}

interface Group<I, O> {
  returning: boolean;
  waiting: Waiting<I, O>[];
}

export function coalescer<I, R, O>(to: CoalesceSend<I, R, O>): Coalesced<I, O> {
  let queue = new Map<string, Group<I, O>>();
  let scheduled = false;

  // A batch that goes in settles through then() chains rather than async functions: fewer promises
  // per row, each of which Jest 30 on Node 20 hooks (its AsyncLocalStorage). A lone call (an
  // awaited loop) goes through one(), the adapter's own statement, with no batch layers at all.
  const settle = (part: Waiting<I, O>[], items: I[], returning: boolean, result: R): Promise<void> =>
    attempt(() => to.finish(items, returning, result))
      .then((outs) => {
        if (outs.length !== part.length) throw mismatch(part.length, outs.length);
        for (let i = 0; i < part.length; i++) part[i]!.resolve(outs[i]!);
      })
      .catch((e: unknown) => {
        for (const w of part) w.reject(e);
      });

  const alone = (w: Waiting<I, O>, returning: boolean): Promise<void> => attempt(() => to.one(w.item, returning)).then(w.resolve, w.reject);

  const batch = (part: Waiting<I, O>[], returning: boolean): Promise<void> => {
    if (part.length === 1) return alone(part[0]!, returning);
    const items = part.map((w) => w.item);
    return attempt(() => to.send(items, returning)).then(
      (result) => settle(part, items, returning, result),
      async () => {
        for (const w of part) await alone(w, returning);
      },
    );
  };

  const flush = (): void => {
    const groups = queue;
    queue = new Map();
    scheduled = false;
    for (const { returning, waiting } of groups.values()) {
      let at = 0;
      for (const size of batchSizes(waiting.length, to.limit(waiting[0]!.item))) void batch(waiting.slice(at, (at += size)), returning);
    }
  };

  return {
    add(shape, returning, item) {
      return new Promise<O>((resolve, reject) => {
        const key = returning ? `${shape}|r` : `${shape}|n`;
        let group = queue.get(key);
        if (!group) queue.set(key, (group = { returning, waiting: [] }));
        group.waiting.push({ item, resolve, reject });
        if (!scheduled) {
          scheduled = true;
          queueMicrotask(flush);
        }
      });
    },
  };
}

/** The server returned another number of rows than the batch had: a trigger skipped some, and which is unknown. */
function mismatch(sent: number, returned: number): FastTestDbError {
  return new FastTestDbError(
    'UNSUPPORTED',
    `fastInsert: a batch of ${sent} rows started together returned ${returned} rows (a BEFORE INSERT trigger that skips rows?), so no row can be matched to its call`,
    'pass { coalesce: false } for this table, or await each fastInsert before the next',
  );
}
