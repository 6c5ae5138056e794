/**
 * Every name the core gives a database, in one place. All start with the project's prefix
 * (1-16 lowercase letters and digits, no `_`), so that what is ours is found by prefix:
 * - `<prefix>[_<run>][_s<shard>]_w<worker>[_<suffix>]`: a worker's database (databaseName joins
 *   the non-empty parts with one `_`); `…h<n>` when another handle of the process holds it;
 * - `<prefix>_tpl_<fingerprint>`: a template;
 * - `<prefix>__spare_<hash>`, `<prefix>__old_<random>`: recreate()'s clone made ahead and the used
 *   database set aside (recreate.ts);
 * - `<prefix>__standby_<hash>`: a clone of a template made ahead for the next process (clone.ts);
 * - `<prefix>__new_<…>`: the staging name a creation is built under (engines/marker.ts, stagingName).
 * Only the names of recreate(), the standby and staging hold `__`: nothing a user names can look like them.
 */
import { createHash, randomBytes } from 'node:crypto';
import { FastTestDbError } from '../errors.js';
import { engineFor } from '../engines/index.js';
import { type Context, contextOf } from '../options/context.js';
import { engineOfUrl } from '../server/providers/url.js';
import { heldNames } from '../state.js';
import type { EngineName, TestDatabaseOptions } from '../types.js';
import { databaseName } from '../engines/quote.js';

export interface ResolvedNames {
  engine: EngineName;
  prefix: string;
  run?: string;
  shard?: string;
  worker: string;
}

/** Where the core's entries say a bad option was given. */
export const ENTRY = { where: 'fast-test-db options' };

/** Options, then env vars, then defaults (the entry's context): who this process is and what it names things. */
export function resolveNames(options: TestDatabaseOptions | Context = {}): ResolvedNames {
  const ctx = contextOf(options, ENTRY);
  const { url } = ctx.resolved;
  const ofUrl = url ? engineOfUrl(url) : undefined;
  const engine = ctx.resolved.engine ?? ofUrl ?? 'postgres';
  const { urls } = engineFor(engine);
  if (url && ofUrl && !urls.schemes.includes(schemeOf(url)))
    throw new FastTestDbError(
      'BAD_OPTION',
      `the engine is '${engine}' (${ctx.options.engine ? 'the engine option' : 'FAST_TEST_DB_ENGINE'}), but the URL${ctx.options.url ? '' : ' in FAST_TEST_DB_URL'} is a ${ofUrl} URL`,
      `leave the engine out (it follows the URL's scheme), or give a ${urls.schemes[0]}:// URL`,
    );
  const { prefix } = ctx.names;
  if (!/^[a-z][a-z0-9]{0,15}$/.test(prefix))
    throw new FastTestDbError(
      'BAD_OPTION',
      `prefix "${prefix}" is not 1-16 lowercase letters and digits`,
      "use something like 'ftdb' or 'myapp'",
    );
  return { engine, prefix, run: ctx.names.run, shard: ctx.names.shard, worker: ctx.names.worker };
}

const schemeOf = (url: string) => url.slice(0, url.indexOf(':')).toLowerCase();

/** A worker's database name under the name rules of `of.engine` (a handoff's, a server's). */
export function workerDatabaseName(of: { readonly engine: EngineName }, names: ResolvedNames, suffix?: string): string {
  return databaseName(of.engine, [names.prefix, names.run, names.shard && `s${names.shard}`, `w${names.worker}`, suffix]);
}

/** The names of a process that finds its worker's name held by another live run: a run of its own. */
export function ownProcessNames(names: ResolvedNames): ResolvedNames {
  return { ...names, run: `${names.run ?? ''}p${process.pid.toString(36)}` };
}

/** What every template of the project's prefix starts with. */
export const templatePrefix = (prefix: string) => `${prefix}_tpl_`;

/** What every test database and template of the project's prefix starts with. */
export const ourPrefix = (prefix: string) => `${prefix}_`;

export function templateName(engine: EngineName, prefix: string, fingerprint: string): string {
  return databaseName(engine, [prefix, 'tpl', fingerprint]);
}

/** The prefix a database name starts with (resolveNames keeps it to 16 characters, no `_`). */
export const prefixOf = (name: string) => name.split('_')[0]!;

/** `<prefix>__spare_<hash of name and template>`: one spare per worker database and template. */
export function spareName(name: string, template: string): string {
  return `${prefixOf(name)}__spare_${createHash('sha256').update(`${name}\0${template}`).digest('hex').slice(0, 20)}`;
}

/**
 * `<prefix>__standby_<hash of template>`: one clone of the template made ahead on a server of ours,
 * for the next process that opens a database of it, whatever its name (clone.ts, recreate.ts).
 */
export function standbyName(prefix: string, template: string): string {
  return `${prefix}__standby_${createHash('sha256').update(template).digest('hex').slice(0, 20)}`;
}

/** `<prefix>__old_<random>`: a used database waiting for its drop. */
export function oldName(name: string): string {
  return `${prefixOf(name)}__old_${randomBytes(10).toString('hex')}`;
}

/** Names recreate() gives to databases set aside or made ahead: ours while they carry our marker. */
export function isAsideName(name: string): boolean {
  return /^[a-z][a-z0-9]{0,15}__(old|spare)_[0-9a-f]{20}$/.test(name);
}

/**
 * The first name of `names` (plain, then with `h2`, `h3`, …) no open handle of this process holds,
 * reserved for the caller (state.ts, heldNames) until it calls releaseName.
 */
export function unheldName(names: ResolvedNames, suffix?: string): string {
  let name = workerDatabaseName(names, names, suffix);
  for (let n = 2; heldNames.has(name); n++) name = workerDatabaseName(names, names, `${suffix ?? ''}h${n}`);
  heldNames.add(name);
  return name;
}

/** A handle closed or never made: the process's next handle may take `name` again. */
export function releaseName(name: string): void {
  heldNames.delete(name);
}
