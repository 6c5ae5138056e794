/**
 * The `login` option's refusals, before anything is made: a bad value (whose password no message
 * shows), a server we do not own, the admin's name, a system database. The login made on a real
 * server is test/runners/app-login.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { buildContext } from '../../src/options/context.js';
import { parseServerUrl } from '../../src/server/providers/url.js';
import { makeRunLogin } from '../../src/runners/shared/login.js';
import type { ServerRoles } from '../../src/engines/engine.js';
import type { AppLoginOption, ServerInfo } from '../../src/types.js';

const ctxWith = (login: unknown) => buildContext({ login } as never, { env: {} });
const errorOf = (fn: () => unknown): { code?: string; message: string; fix?: string } => {
  try {
    fn();
  } catch (e) {
    return e as { code?: string; message: string; fix?: string };
  }
  throw new Error('no error');
};

describe('login: bad values', () => {
  it.each([
    ['no password', { user: 'test' }],
    ['an empty user', { user: '', password: 'x-secret' }],
    ['a number for a password', { user: 'test', password: 1234 }],
    ['an unknown key', { user: 'test', password: 'x-secret', host: 'db' }],
    ['a string', 'test:x-secret'],
  ])('%s is BAD_OPTION, naming the shape and never the password', (_, login) => {
    const e = errorOf(() => ctxWith(login));
    expect(e.code).toBe('BAD_OPTION');
    expect(e.message).toMatch(/option login is .*, not \{ user, password, database\? \}/);
    expect(`${e.message} ${e.fix}`).not.toContain('x-secret');
  });

  it('a login with a database is taken', () => {
    expect(ctxWith({ user: 'test', password: 'test', database: 'test' }).options.login).toEqual({
      user: 'test',
      password: 'test',
      database: 'test',
    });
  });
});

// Refused before any connection: the roles are never reached.
const noRoles = undefined as unknown as ServerRoles;
const refusal = (server: ServerInfo, login: AppLoginOption) =>
  makeRunLogin({ options: { login } }, noRoles, server, 'ftdb_tpl_x', 'r1').then(
    () => undefined,
    (e: { code?: string; message: string; fix?: string }) => e,
  );

describe('login: where it is refused', () => {
  const url = parseServerUrl('postgres://ci:ci-pass@127.0.0.1:5432/postgres', false, {});
  const server = { ...url, flavor: 'postgres', version: '16.4', major: 16, tuned: false } as ServerInfo;

  it('on a server we do not own: NOT_OURS, with how to do it there', async () => {
    const e = await refusal(server, { user: 'test', password: 'test' });
    expect(e?.code).toBe('NOT_OURS');
    expect(e?.message).toMatch(/login test on 127\.0\.0\.1:5432, a server fast-test-db did not start/);
    expect(e?.fix).toMatch(/make that login on that server yourself/);
    expect(`${e?.message} ${e?.fix}`).not.toContain("password: 'test'");
  });

  it('on a server we do not own, its own login is no change: nothing to make', async () => {
    expect(await refusal(server, { user: 'ci', password: 'ci-pass' })).toBeUndefined();
    expect((await refusal(server, { user: 'ci', password: 'ci-pass', database: 'test' }))?.code).toBe('NOT_OURS');
  });

  it("the admin's name with another password, and a system database: BAD_OPTION", async () => {
    const ours = { ...server, owned: true, user: 'postgres', password: 'made-here' };
    const admin = await refusal(ours, { user: 'postgres', password: 'postgres' });
    expect(admin?.code).toBe('BAD_OPTION');
    expect(admin?.message).toMatch(/login\.user postgres is the server's admin account/);
    const system = await refusal(ours, { user: 'test', password: 'test', database: 'template1' });
    expect(system?.code).toBe('BAD_OPTION');
    expect(system?.message).toMatch(/login\.database template1 is one of the server's own databases/);
  });
});
