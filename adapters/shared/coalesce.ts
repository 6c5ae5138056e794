/**
 * Single-row inserts started in the same tick, as `Promise.all(rows.map((r) => fastInsert(repo, r)))`
 * starts them, wait for the tick to end and go out as multi-row statements: one round trip per
 * batch instead of one per row, with the same rows and the same per-call results.
 *
 * A batch the server refuses is sent again row by row, so that every call settles as it would have
 * alone: the rows that can go in do, and each failing row rejects with its own statement's error.
 * What differs from separate statements: sequence values the refused batch drew are skipped, and
 * statement-level triggers fire once per batch. Calls on a transaction's connection never come
 * here, since a refused statement would abort the caller's transaction.
 */
export interface Coalesced<I, O> {
  /** Queues one row's insert; rows with the same `shape` (statement text but for the row count) share a batch. */
  add(shape: string, item: I): Promise<O>;
}

export interface CoalesceSend<I, O> {
  /** One statement for these items (all of one shape), whose outcomes come back in the same order. */
  send(shape: string, items: I[]): Promise<O[]>;
  /** Most rows one statement of this shape may carry (the engine's bind-parameter limit). */
  limit(item: I): number;
}

interface Waiting<I, O> {
  item: I;
  resolve: (o: O) => void;
  reject: (e: unknown) => void;
}

export function coalescer<I, O>(to: CoalesceSend<I, O>): Coalesced<I, O> {
  let queue = new Map<string, Waiting<I, O>[]>();
  let scheduled = false;

  // then() chains rather than async functions: fewer promises per row, each of which Jest 30 on
  // Node 20 hooks (its AsyncLocalStorage).
  const alone = (shape: string, w: Waiting<I, O>): Promise<void> => to.send(shape, [w.item]).then((o) => w.resolve(o[0]!), w.reject);

  const batch = (shape: string, part: Waiting<I, O>[]): Promise<void> => {
    if (part.length === 1) return alone(shape, part[0]!);
    return to
      .send(
        shape,
        part.map((w) => w.item),
      )
      .then(
        (outs) => {
          for (let i = 0; i < part.length; i++) part[i]!.resolve(outs[i]!);
        },
        async () => {
          for (const w of part) await alone(shape, w);
        },
      );
  };

  const flush = (): void => {
    const groups = queue;
    queue = new Map();
    scheduled = false;
    for (const [shape, waiting] of groups) {
      const size = to.limit(waiting[0]!.item);
      for (let i = 0; i < waiting.length; i += size) void batch(shape, waiting.slice(i, i + size));
    }
  };

  return {
    add(shape, item) {
      return new Promise<O>((resolve, reject) => {
        let group = queue.get(shape);
        if (!group) queue.set(shape, (group = []));
        group.push({ item, resolve, reject });
        if (!scheduled) {
          scheduled = true;
          queueMicrotask(flush);
        }
      });
    },
  };
}
