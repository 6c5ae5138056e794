/**
 * An adapter's *TestDb(), or a createTestDatabase() call in a test file, inside a test run that a
 * runner integration wired. Both would otherwise name this worker's database `<prefix>_<run>_w<id>`
 * on the same server, and each would drop the other's clone to make its own. Instead:
 * - the adapter's schema is the runner's template (same fingerprint): the adapter uses the runner's
 *   database, the one the app reads from DATABASE_URL, so both see the same rows; it follows the
 *   runner's isolation and leaves dropping it to the runner's teardown;
 * - another schema: the adapter gets a database of its own next to the runner's, named with a
 *   suffix from its template's fingerprint (`…_w1_t84a2944d`), still part of the run, so the
 *   runner's teardown drops it if the test does not.
 * Outside a runner, or on another server, nothing changes.
 */
import { readHandoff } from '../../options/handoff.js';
import { logger } from '../../util/log.js';
import { openDatabase, prepareTemplate } from '../../core/database.js';
import type { ServerInfo, TestDatabase, TestDatabaseOptions } from '../../types.js';
import { workerTarget, type Handoff } from './handoff.js';
import { settled } from './ready.js';
import { readyForFile, workerDatabase } from './worker.js';

const log = logger('runner');

const sameServer = (a: ServerInfo, b: ServerInfo) =>
  a.engine === b.engine && a.host === b.host && a.port === b.port && a.socket === b.socket;

/** The name suffix an adapter's own database takes under a runner: its template's fingerprint. */
export function adapterSuffix(fingerprint: string, suffix?: string): string {
  return `${suffix ?? ''}t${fingerprint.slice(0, 8)}`;
}

/**
 * createTestDatabase, made to share the server with a runner integration of this run rather than
 * fight it. This is what the package exports as `createTestDatabase` and what every adapter calls:
 * a test file that calls it directly composes with the runner exactly as an adapter does.
 */
export async function adapterDatabase(options: TestDatabaseOptions = {}): Promise<TestDatabase> {
  const pending = readHandoff(process.env);
  if (!pending) return openDatabase(options);
  const h = await settled(pending);
  const withRun = { ...options, runId: options.runId ?? h.run };
  const prepared = await prepareTemplate(withRun);
  if (!sameServer(prepared.server, h.server)) return openDatabase(options);
  if (prepared.template.name === h.template) return runnersDatabase(h);
  const suffix = adapterSuffix(prepared.template.fingerprint, options.suffix);
  log(
    'the runner built %s and this adapter %s: the adapter takes its own database (suffix %s)',
    h.template,
    prepared.template.name,
    suffix,
  );
  return openDatabase({ ...withRun, suffix });
}

/** The runner's database of this worker: disposing it leaves it to the runner, which drops it at the end of the run. */
async function runnersDatabase(h: Handoff): Promise<TestDatabase> {
  const target = workerTarget(h);
  await readyForFile(h, target.name);
  log('the adapter uses the runner database %s (same template %s)', target.name, h.template);
  return workerDatabase(h, target);
}
