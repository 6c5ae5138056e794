/**
 * What no TypeORM of the matrix does, but an older or odd one could: one clear UNSUPPORTED error,
 * never a raw TypeError. A `typeorm` with neither DataSource nor Connection stands for 0.1.x here.
 */
import { expect, it, vi } from 'vitest';

vi.doMock('typeorm', () => ({ getConnection: () => undefined }));
const { typeormTestDb, fastInsert } = await import('../../../adapters/typeorm/index.js');

it('refuses a typeorm that exports neither DataSource nor Connection, naming the upgrade', async () => {
  const err = await typeormTestDb({ type: 'postgres' }).catch((e: unknown) => e);
  expect(err).toMatchObject({ code: 'UNSUPPORTED', message: expect.stringMatching(/exports neither DataSource nor Connection/) });
  expect((err as { fix: string }).fix).toMatch(/typeorm@\^0\.3\.20/);
});

it('refuses a repository whose manager has no DataSource or Connection', async () => {
  const repo = { manager: {}, metadata: {}, target: class X {} };
  await expect(fastInsert(repo as never, {})).rejects.toMatchObject({ code: 'UNSUPPORTED' });
});
