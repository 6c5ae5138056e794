/**
 * The coalescer's contract on its own, with plain functions for the statement: which calls share a
 * statement, what is sent again when the statement is refused, and what is not sent again once
 * rows were written. The adapters' suites check the shared statement and the row-by-row retry on
 * real servers (test/adapters/typeorm, test/adapters/drizzle, test/adapters/prisma: "settling as if alone"); a batch that
 * comes back short is checked here only.
 */
import { describe, expect, it } from 'vitest';
import { batchSizes, coalescer } from '../../adapters/shared/coalesce.js';

/** Records every statement; `refuse` decides which the "server" refuses, `finish` what comes back. */
function recorder(opts: { refuse?: (items: number[]) => boolean; finish?: (items: number[]) => number[]; limit?: number } = {}) {
  const sent: number[][] = [];
  const send = async (items: number[]) => {
    sent.push(items);
    if (opts.refuse?.(items)) throw new Error(`refused ${items.join(',')}`);
    return items;
  };
  const finish = (items: number[]) => (opts.finish ? opts.finish(items) : items.map((i) => i * 10));
  const c = coalescer<number, number[], number>({
    limit: () => opts.limit ?? 1000,
    one: async (item) => finish(await send([item]))[0]!,
    send,
    finish,
  });
  return { sent, c };
}

describe('coalescer', () => {
  it('batch sizes are the limit, then powers of two: few statement texts per shape', () => {
    expect(batchSizes(1, 1000)).toEqual([1]);
    expect(batchSizes(256, 1000)).toEqual([256]);
    expect(batchSizes(300, 1000)).toEqual([256, 32, 8, 4]);
    expect(batchSizes(2500, 1000)).toEqual([1000, 1000, 256, 128, 64, 32, 16, 4]);
    expect(batchSizes(7, 3)).toEqual([3, 3, 1]);
    for (const n of [1, 5, 999, 1001, 4097]) expect(batchSizes(n, 1000).reduce((a, b) => a + b, 0)).toBe(n);
  });

  it('calls started in one tick share a statement per shape; a call after an await gets its own', async () => {
    const { sent, c } = recorder();
    const outs = await Promise.all([c.add('a', true, 1), c.add('b', true, 2), c.add('a', true, 3)]);
    expect(outs).toEqual([10, 20, 30]);
    expect(sent).toEqual([[1, 3], [2]]);
    expect(await c.add('a', true, 4)).toBe(40);
    expect(sent).toHaveLength(3);
  });

  it('a refused statement goes again row by row: each call settles as it would alone', async () => {
    const { sent, c } = recorder({ refuse: (items) => items.includes(2) });
    const settled = await Promise.allSettled([1, 2, 3, 4].map((i) => c.add('a', true, i)));
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    expect((settled[1] as PromiseRejectedResult).reason.message).toBe('refused 2');
    expect(sent).toEqual([[1, 2, 3, 4], [1], [2], [3], [4]]);
  });

  it('a failure after the rows were written fails every call of the batch and sends nothing again', async () => {
    const { sent, c } = recorder({
      finish: () => {
        throw new Error('could not read the rows back');
      },
    });
    const settled = await Promise.allSettled([1, 2].map((i) => c.add('a', true, i)));
    expect(settled.map((s) => s.status)).toEqual(['rejected', 'rejected']);
    expect(sent).toEqual([[1, 2]]);
  });

  it('fewer rows back than sent (a trigger skipped one): every call fails with UNSUPPORTED, nothing is matched by guess', async () => {
    const { c } = recorder({ finish: (items) => items.slice(1) });
    const settled = await Promise.allSettled([1, 2, 3, 4].map((i) => c.add('a', true, i)));
    for (const s of settled) expect((s as PromiseRejectedResult).reason).toMatchObject({ code: 'UNSUPPORTED' });
  });

  it('a statement that throws instead of rejecting fails its calls, and the next shape still goes out', async () => {
    const sent: string[] = [];
    const send = (items: string[]) => {
      if (items.includes('bad')) throw new Error('no statement for this');
      sent.push(items.join());
      return Promise.resolve('ok');
    };
    const c = coalescer<string, string, string>({
      limit: () => 1000,
      one: (item) => send([item]),
      send,
      finish: (items) => items.map(() => 'ok'),
    });
    // x alone (one() throws), y alone, z a batch whose send() throws: its rows then go one by one.
    const settled = await Promise.allSettled([
      c.add('x', true, 'bad'),
      c.add('y', true, 'good'),
      c.add('z', true, 'bad'),
      c.add('z', true, 'fine'),
    ]);
    expect(settled.map((s) => s.status)).toEqual(['rejected', 'fulfilled', 'rejected', 'fulfilled']);
    expect(sent).toEqual(['good', 'fine']);
  });
});
