/**
 * Counts the INSERT statements a driver object sends through one of its methods (pg's `query`,
 * postgres.js's `unsafe`, mysql2's and mariadb's `execute`): the statements still run, only seen on
 * their way. The fastInsert suites use it to tell one multi-row statement from one per call.
 */
export interface InsertCounter {
  /** INSERTs since the counter was made or last reset. */
  readonly count: number;
  reset(): void;
  /** Puts the driver's own method back. */
  restore(): void;
}

export function countInserts(target: object, method: string): InsertCounter {
  const on = target as Record<string, unknown>;
  const send = on[method] as (...args: unknown[]) => unknown;
  let count = 0;
  on[method] = (...args: unknown[]) => {
    const a = args[0] as string | { text?: string; sql?: string };
    if ((typeof a === 'string' ? a : (a.text ?? a.sql))?.startsWith('INSERT')) count++;
    return send.apply(target, args);
  };
  return {
    get count() {
      return count;
    },
    reset: () => void (count = 0),
    restore: () => void (on[method] = send),
  };
}
