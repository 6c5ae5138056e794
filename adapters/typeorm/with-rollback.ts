/**
 * withRollback for TypeORM: `fn` gets the EntityManager of one QueryRunner in an open transaction,
 * which is rolled back once `fn` settles. TypeORM (0.2.45 on) makes a `manager.transaction()` inside
 * it a savepoint, so code handed the manager may open and commit transactions of its own. What it
 * writes through the DataSource itself, or another manager, stays: the limits are in docs/isolation.md.
 */
import type { DataSource, EntityManager } from 'typeorm';

/**
 * Runs `fn` in a transaction of `dataSource` that is rolled back once `fn` settles, and resolves
 * to what `fn` resolved to (or rejects with its error). `fastInsert(manager.getRepository(E), rows)`
 * writes inside it.
 */
export async function withRollback<T>(dataSource: DataSource, fn: (manager: EntityManager) => Promise<T>): Promise<T> {
  const runner = dataSource.createQueryRunner();
  let failed = false;
  try {
    await runner.connect();
    await runner.startTransaction();
    return await fn(runner.manager);
  } catch (e) {
    failed = true;
    throw e;
  } finally {
    // Active unless `fn` ended it itself (commitTransaction() on its runner): then nothing is undone.
    const undo = runner.isTransactionActive ? runner.rollbackTransaction() : Promise.resolve();
    // A failed ROLLBACK is reported only when `fn` succeeded: otherwise `fn`'s error is the one that says what went wrong.
    await undo.then(
      () => runner.release(),
      async (e: unknown) => {
        await runner.release();
        if (!failed) throw e;
      },
    );
  }
}
