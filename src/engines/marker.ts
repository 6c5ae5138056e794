/**
 * The marker every database we create carries, the states of a template, and the staging names a
 * database is built under: the same on every engine; each engine's marker.ts stores them its way.
 */
import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import { invocation } from '../state.js';

/** A template's use by one invocation, so that `clean` and eviction leave it while that one lives. */
export interface Lease {
  pid: number;
  host: string;
  run?: string;
  /** ISO time the lease was taken. */
  at: string;
}

/** What we write next to every database we create, and check before anything destructive. */
export interface Marker {
  tool: 'fast-test-db';
  kind: 'template' | 'database';
  /** ISO timestamp of creation, for `clean --older-than`. */
  created: string;
  run?: string;
  fingerprint?: string;
  /** Creating process, to tell a live owner from a crashed one. */
  pid?: number;
  /**
   * The invocation the database belongs to (src/core/users.ts): a runner's main process, whose workers
   * come and go, else the creating process.
   */
  invocation?: number;
  host?: string;
  /** A clone: the template it was cloned from, which stays while the clone's invocation lives. */
  template?: string;
  /** A template: the invocations using it (src/core/users.ts); `clean` and eviction leave it while one lives. */
  leases?: Lease[];
  /** Tables that had rows when the template was completed (migration history, reference data). */
  seeded?: string[];
  /** PostgreSQL: sequences the template had used, name -> last_value, for reset() to restore. */
  sequences?: Record<string, string>;
  /** PostgreSQL: rows of each seeded table in the template, for reset() to see a seeded table changed. */
  seedRows?: Record<string, number>;
  /**
   * PostgreSQL: a transaction id taken when the template was completed. Every row the template holds
   * was written before it; a row written after it (a test's INSERT or UPDATE) means the table changed.
   */
  seedXid?: string;
  /** PostgreSQL: materialized views the template holds WITH NO DATA, for reset() to keep them so. */
  unpopulated?: string[];
  /** PostgreSQL: the template's large objects (oids); reset() unlinks any other. */
  largeObjects?: string[];
  /** Where migrate's source text was hashed instead of its inputs: the run this template is scoped to. */
  scope?: string;
}

/**
 * `unmarked`: a database of that name exists without our template marker. Outside the build lock that
 * may be another process between CREATE DATABASE and writing the marker; under the lock it is not ours.
 */
export type TemplateState = 'missing' | 'unmarked' | 'incomplete' | 'complete';

/** A session connected to a server, as a warning or `fast-test-db stop` names it. */
export interface OpenSession {
  /** The server process serving it (PostgreSQL); MySQL/MariaDB: the connection id. */
  pid: number;
  user?: string;
  database?: string;
  application?: string;
  /** Where it connects from: address:port, or 'local socket'. */
  client?: string;
  state?: string;
  query?: string;
}

/**
 * The invocation this process belongs to: the runner's main process it joined (src/core/users.ts
 * joinInvocation), else itself.
 */
export function invocationPid(): number {
  return invocation.joined ?? process.pid;
}

/** The marker of a database this process creates now. */
export function newMarker(kind: Marker['kind'], extra: Partial<Marker> = {}): Marker {
  return {
    tool: 'fast-test-db',
    kind,
    created: new Date().toISOString(),
    pid: process.pid,
    invocation: invocationPid(),
    host: hostname(),
    ...extra,
  };
}

export const MARKER_TAG = 'fast-test-db';

export function encodeMarker(m: Marker): string {
  return `${MARKER_TAG} ${JSON.stringify(m)}`;
}

export function decodeMarker(text: string | null | undefined): Marker | null {
  if (!text?.startsWith(MARKER_TAG + ' ')) return null;
  try {
    const m = JSON.parse(text.slice(MARKER_TAG.length + 1)) as Marker;
    return m.tool === 'fast-test-db' ? m : null;
  } catch {
    return null;
  }
}

/**
 * The name a database is created under before it is marked and renamed into place: a database the
 * library is creating is recognisable as ours at every instant, by this name until the marker is
 * written, by the marker after. `<prefix>__new_<12 hex of the final name><8 hex check>`: our own
 * names never hold `__` (databaseName joins non-empty parts with one `_`), and the check digits,
 * a hash of the rest, make it a name no one else would choose. Deterministic, so that the next
 * process wanting the same final name finds what a killed one left.
 */
export function stagingName(name: string): string {
  const prefix = name.split('_')[0]!.slice(0, 16);
  const a = createHash('sha256').update(name).digest('hex').slice(0, 12);
  return `${prefix}__new_${a}${stagingCheck(a)}`;
}

function stagingCheck(a: string): string {
  return createHash('sha256').update(`fast-test-db staging ${a}`).digest('hex').slice(0, 8);
}

export function isStagingName(name: string): boolean {
  const m = /^[a-z][a-z0-9]{0,15}__new_([0-9a-f]{12})([0-9a-f]{8})$/.exec(name);
  return m !== null && stagingCheck(m[1]!) === m[2];
}

/** True when the marker's process ran on this machine and is gone: what it was creating is a leftover. */
export function ownerGone(marker: Pick<Marker, 'host' | 'pid'>, alive: (pid: number) => boolean): boolean {
  return marker.host === hostname() && marker.pid !== undefined && marker.pid !== process.pid && !alive(marker.pid);
}
