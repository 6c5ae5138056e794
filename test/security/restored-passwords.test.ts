/**
 * Our PostgreSQL servers take the password as it is over 127.0.0.1 (no SCRAM exchange): safe only
 * if a password dies with its server. A server started from a stopped one's data directory (the
 * warm copy) holds that server's secrets: here its old admin password and an old login's password
 * are refused, the new ones let in, and the login rules it loaded are the password ones.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { handOutDatabase } from '../../src/cli/hand-out.js';
import { withClient } from '../../src/engines/connect.js';
import { engineFor } from '../../src/engines/index.js';
import { createTestDatabase } from '../../src/index.js';
import { listDir } from '../../src/server/os/shared-files.js';
import { WARM_COPY_NAME } from '../../src/server/os/copy-names.js';
import type { ServerInfo } from '../../src/types.js';
import { stopOwnedServer } from '../../src/server/registry.js';
import { privateDataRoot, removeDataRoot, waitFor } from '../core/helpers.js';

/** The SQLSTATE of a TCP login with `password` as `user`, or 'ok'. */
async function tcpLogin(server: ServerInfo, user: string, password: string, database = 'postgres'): Promise<string> {
  const c = new pg.Client({ host: '127.0.0.1', port: server.port, user, password, database });
  try {
    await c.connect();
    return 'ok';
  } catch (e) {
    return (e as { code?: string }).code ?? String(e);
  } finally {
    await c.end().catch(() => undefined);
  }
}

describe('a server started from a copy lets no old password in', () => {
  const dataRoot = privateDataRoot('sealed');
  const work = mkdtempSync(join('/tmp', 'ftdb-sealed-'));
  const cacheDir = join(work, 'cache');
  const options = { dataRoot, cacheDir, cacheDataDir: true, graceMs: 0, worker: 'sealed' };
  afterAll(async () => {
    await removeDataRoot(dataRoot);
    rmSync(work, { recursive: true, force: true });
  });

  it('refuses the stopped server’s admin and login passwords, and takes the new ones as they are', async () => {
    const first = await createTestDatabase(options);
    const old = first.server;
    const roles = await engineFor('postgres').load();
    const handed = await withClient(roles.connector, old, (admin) =>
      handOutDatabase(roles, admin, old, { user: 'applogin', database: 'appdb' }),
    );
    const oldLogin = new URL(handed.url).password;
    expect(await tcpLogin(old, 'applogin', oldLogin, 'appdb')).toBe('ok');
    await first.destroy();
    // Stopped as `fast-test-db stop` stops it: the keeper saves the data directory once it shut down cleanly.
    await stopOwnedServer(old.stateDir!);
    expect(await waitFor(() => listDir(cacheDir).some((d) => WARM_COPY_NAME.test(d)), 15_000)).toBe(true);

    const second = await createTestDatabase(options);
    try {
      const now = second.server;
      expect(now.stateDir).not.toBe(undefined);
      expect(now.password).not.toBe(old.password);
      // The copy's role with its old secret is there: only its password was taken away.
      const logins = await withClient(roles.connector, now, (admin) =>
        admin.query<{ rolname: string; has: boolean }>(
          "SELECT rolname, rolpassword IS NOT NULL AS has FROM pg_authid WHERE rolname IN ('postgres', 'applogin') ORDER BY 1",
        ),
      );
      expect(logins).toEqual([
        { rolname: 'applogin', has: false },
        { rolname: 'postgres', has: true },
      ]);
      // 28P01: invalid_password. The port may be the old one's or not: the password is what is refused.
      expect(await tcpLogin(now, 'postgres', old.password)).toBe('28P01');
      expect(await tcpLogin(now, 'applogin', oldLogin, 'appdb')).toBe('28P01');
      expect(await tcpLogin(now, 'postgres', now.password)).toBe('ok');
      const hba = readFileSync(join(now.stateDir!, 'pg_hba.conf'), 'utf8');
      expect(hba).toMatch(/^host\tall\tall\t127\.0\.0\.1\/32\tpassword$/m);
      expect(hba).not.toMatch(/scram|trust/);
    } finally {
      await second.destroy();
    }
  }, 120_000);
});
