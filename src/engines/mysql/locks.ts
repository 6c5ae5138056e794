/** Server-wide locks: GET_LOCK on the admin connection. */
import { createHash } from 'node:crypto';
import { FastTestDbError, messageOf } from '../../errors.js';
import { logger } from '../../util/log.js';
import type { Locks } from '../engine.js';
import type { MysqlClient } from './client.js';
import { lit } from './quote.js';

const log = logger('mysql');

/** How long a process waits for another one building the same template. */
const BUILD_LOCK_SECONDS = 600;

/** GET_LOCK names are limited to 64 characters. */
function lockName(key: string): string {
  const name = `fast-test-db:${key}`;
  return name.length <= 64 ? name : `fast-test-db:${createHash('sha256').update(key).digest('hex').slice(0, 40)}`;
}

async function withLock<T>(admin: MysqlClient, key: string, fn: () => Promise<T>): Promise<T> {
  const name = lockName(key);
  const rows = await admin.query<{ got: number | string | null }>(`SELECT GET_LOCK(${lit(name)}, ${BUILD_LOCK_SECONDS}) AS got`);
  const got = rows[0]?.got;
  if (got === null || got === undefined || Number(got) !== 1)
    throw new FastTestDbError(
      'LOCK_TIMEOUT',
      `waited ${BUILD_LOCK_SECONDS} s for lock "${name}" held by another process building the same template`,
      'look for a hung migration in another test process (SELECT * FROM information_schema.PROCESSLIST), or kill it',
    );
  try {
    return await fn();
  } finally {
    await admin.query(`SELECT RELEASE_LOCK(${lit(name)})`).catch((e) => log(`could not release ${name}: ${messageOf(e)}`));
  }
}

async function withFreeLock<T>(admin: MysqlClient, key: string, fn: () => Promise<T>): Promise<T | undefined> {
  const name = lockName(key);
  const rows = await admin.query<{ got: number | string | null }>(`SELECT GET_LOCK(${lit(name)}, 0) AS got`);
  if (Number(rows[0]?.got) !== 1) return undefined;
  try {
    return await fn();
  } finally {
    await admin.query(`SELECT RELEASE_LOCK(${lit(name)})`).catch((e) => log(`could not release ${name}: ${messageOf(e)}`));
  }
}

export const locks: Locks<MysqlClient> = { withLock, withFreeLock };
