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
import { logger } from '../../util/log.js';
import { openDatabase, prepareTemplate } from '../../core/database.js';
import { type Context, withHandoff, withOptions } from '../../options/context.js';
import type { Handoff, ServerInfo, TestDatabase } from '../../types.js';
import { workerTarget } from './handoff.js';
import { settled } from './ready.js';
import { readyForFile, workerDatabase } from './worker.js';

const log = logger('runner');

/** One address is one server: the same host (or socket) and port. */
const sameServer = (a: ServerInfo, b: ServerInfo) => a.host === b.host && a.port === b.port && a.socket === b.socket;

/** The name suffix an adapter's own database takes under a runner: its template's fingerprint. */
export function adapterSuffix(fingerprint: string, suffix?: string): string {
  return `${suffix ?? ''}t${fingerprint.slice(0, 8)}`;
}

/**
 * createTestDatabase (create-test-database.ts) in a worker of a runner's run (`pending` is its
 * handoff), made to share the server with the runner rather than fight it.
 */
export async function composeWithRunner(ctx: Context, pending: Handoff): Promise<TestDatabase> {
  const h = await settled(pending);
  // The run's finished server, not the address the env still holds: the template's fingerprint
  // takes its version. The context's run is the handoff's unless the caller gave one.
  const entry = withHandoff(ctx, h);
  const prepared = await prepareTemplate(entry);
  if (!sameServer(prepared.server, h.server)) return openDatabase(entry);
  if (prepared.template.name === h.template) return runnersDatabase(h, ctx.names.worker);
  const suffix = adapterSuffix(prepared.template.fingerprint, ctx.options.suffix);
  log(
    'the runner built %s and this adapter %s: the adapter takes its own database (suffix %s)',
    h.template,
    prepared.template.name,
    suffix,
  );
  return openDatabase(withOptions(entry, { suffix }));
}

/** The runner's database of this worker: disposing it leaves it to the runner, which drops it at the end of the run. */
async function runnersDatabase(h: Handoff, worker: string): Promise<TestDatabase> {
  const target = workerTarget(h, worker);
  await readyForFile(h, target.name);
  log('the adapter uses the runner database %s (same template %s)', target.name, h.template);
  return workerDatabase(h, target);
}
