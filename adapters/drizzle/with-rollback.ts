/**
 * withRollback for Drizzle: `fn` runs inside `db.transaction()`, which is then rolled back
 * whatever `fn` did. Drizzle's own transaction holds one connection of the pool for it, and its
 * nested `tx.transaction()` is a savepoint, so code handed `tx` may open and commit transactions of
 * its own. What it writes through anything but `tx` stays: the limits are in docs/isolation.md.
 */

/** Thrown inside the transaction to end it with ROLLBACK; caught here, never seen outside. */
const ROLLBACK = new Error('fast-test-db: rolled back by withRollback');

/** The transaction object Drizzle hands the callback of `db.transaction()`. */
export type DrizzleTransactionOf<TDb> = TDb extends { transaction(fn: (tx: infer Tx) => Promise<any>, ...rest: any[]): any } ? Tx : never;

/**
 * Runs `fn` in a transaction of `db` that is rolled back once `fn` settles, and resolves to what
 * `fn` resolved to (or rejects with its error). `fastInsert(tx, table, rows)` writes inside it.
 */
export async function withRollback<TDb extends { transaction(...args: any[]): Promise<any> }, T>(
  db: TDb,
  fn: (tx: DrizzleTransactionOf<TDb>) => Promise<T>,
): Promise<T> {
  let value: T;
  try {
    await db.transaction(async (tx: DrizzleTransactionOf<TDb>) => {
      value = await fn(tx);
      throw ROLLBACK;
    });
  } catch (e) {
    if (e !== ROLLBACK) throw e;
  }
  return value!;
}
