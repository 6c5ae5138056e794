/**
 * A suite whose files all shared one database ran them one at a time: `maxWorkers: 1`,
 * `--runInBand`, `fileParallelism: false`. With a database per worker that reason is gone, so
 * withFastTestDb drops the setting from the runner's config, and the runner takes its own default,
 * availableParallelism() - 1 workers for Jest and Vitest alike. A command-line flag wins over any
 * config: it stays, and the status line says what dropping it gives. Kept with keepSerial (a suite
 * serial for a reason of its own) and with login.database, which every worker shares.
 */
import { availableParallelism } from 'node:os';
import { FastTestDbError } from '../../errors.js';
import { resolveOptions } from '../../options/resolve.js';
import type { FastTestDbConfig } from '../../types.js';

export interface Serial {
  /** The setting as the user wrote it: `maxWorkers: 1`, `--runInBand`. */
  setting: string;
  lifted: boolean;
  /** Why it stays: an option, or the command line, which a config cannot override. */
  kept?: string;
}

const NOTE = Symbol.for('fast-test-db.serial');
type Noted = { [NOTE]?: Serial };

/** The wrapper runs in the runner's main process, as does the global setup that prints the status line. */
function note(serial: Serial | undefined): void {
  (globalThis as Noted)[NOTE] = serial;
}

export function notedSerial(): Serial | undefined {
  return (globalThis as Noted)[NOTE];
}

/** What Jest and Vitest use when nothing says how many workers: fewer in watch mode, to keep the machine usable. */
export const runnerDefaultWorkers = (watch = false): number =>
  Math.max(watch ? Math.floor(availableParallelism() / 2) : availableParallelism() - 1, 1);

const isOne = (v: unknown) => v === 1 || v === '1';

/** Why these options keep a serial setting, or undefined. */
function keepReason(options: FastTestDbConfig, env: NodeJS.ProcessEnv): string | undefined {
  if (options.keepSerial) return 'keepSerial: true';
  if (options.keepSerial === undefined && resolveOptions({}, env).keepSerial) return 'FAST_TEST_DB_KEEP_SERIAL';
  if (options.login?.database) return 'login.database, which every worker shares';
  return undefined;
}

/** The first of `flags` on the command line that makes the run serial, as written. */
function cliSerial(argv: readonly string[], alone: readonly string[], valued: readonly string[]): string | undefined {
  for (let i = 2; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') return undefined;
    if (alone.includes(a)) return a;
    const [flag, value = argv[i + 1]] = a.split('=', 2) as [string, string?];
    if (valued.includes(flag) && isOne(value)) return `${flag} 1`;
  }
  return undefined;
}

function decide(cli: string | undefined, settings: string[], options: FastTestDbConfig, env: NodeJS.ProcessEnv): Serial | undefined {
  if (cli) return { setting: cli, lifted: false, kept: 'the command line' };
  if (!settings.length) return undefined;
  const kept = keepReason(options, env);
  return { setting: settings.join(', '), lifted: !kept, ...(kept ? { kept } : {}) };
}

/** Jest's config without a `maxWorkers: 1` that only a shared database needed; `--runInBand` and `-i` are Jest's, not the config's. */
export function liftJestSerial<C extends { maxWorkers?: unknown }>(
  config: C,
  options: FastTestDbConfig,
  argv: readonly string[] = process.argv,
  env: NodeJS.ProcessEnv = process.env,
): C {
  const cli = cliSerial(argv, ['--runInBand', '--run-in-band', '-i'], ['--maxWorkers', '--max-workers', '-w']);
  const serial = decide(cli, isOne(config.maxWorkers) ? [`maxWorkers: ${JSON.stringify(config.maxWorkers)}`] : [], options, env);
  note(serial);
  if (!serial?.lifted) return config;
  const { maxWorkers: _, ...rest } = config;
  return rest as C;
}

/** Vitest's `test` config without `fileParallelism: false` and `maxWorkers: 1` (Vitest 4 has no singleFork or singleThread). */
export function liftVitestSerial<T extends { maxWorkers?: unknown; fileParallelism?: unknown }>(
  test: T,
  options: FastTestDbConfig,
  argv: readonly string[] = process.argv,
  env: NodeJS.ProcessEnv = process.env,
): T {
  const cli =
    cliSerial(argv, ['--no-file-parallelism', '--fileParallelism=false'], ['--maxWorkers']) ??
    (isOne(env.VITEST_MAX_WORKERS) ? 'VITEST_MAX_WORKERS=1' : undefined);
  const settings = [
    ...(test.fileParallelism === false ? ['fileParallelism: false'] : []),
    ...(isOne(test.maxWorkers) ? [`maxWorkers: ${JSON.stringify(test.maxWorkers)}`] : []),
  ];
  const serial = decide(cli, settings, options, env);
  note(serial);
  if (!serial?.lifted) return test;
  const { maxWorkers: _, fileParallelism: __, ...rest } = test;
  return rest as T;
}

/**
 * The run's options, once the config file is read: a keepSerial or login.database there came after
 * the runner chose its workers from the lifted config, and the run stops rather than share a database.
 */
export function checkLift(merged: FastTestDbConfig, env: NodeJS.ProcessEnv): void {
  const serial = notedSerial();
  const kept = serial?.lifted ? keepReason(merged, env) : undefined;
  if (kept)
    throw new FastTestDbError(
      'BAD_OPTION',
      `withFastTestDb dropped ${serial!.setting} from the runner's config, and the config file then said to keep it (${kept}): the runner had already chosen its workers`,
      `give ${kept.split(',')[0]} in withFastTestDb's options instead of fast-test-db.config.*, or set FAST_TEST_DB_KEEP_SERIAL=1`,
    );
}

/** The status line's part on workers: how many, and what became of a serial setting. */
export function workersPhrase(workers: number, serial: Serial | undefined = notedSerial()): string {
  const count = workers === 1 ? '1 worker' : `up to ${workers} workers`;
  if (!serial) return count;
  if (serial.lifted)
    return `${count}, the runner's default on ${availableParallelism()} CPUs (${serial.setting} dropped: each worker has its own database; keepSerial: true keeps it)`;
  const could = runnerDefaultWorkers();
  if (serial.kept === 'the command line' && could > 1)
    return `${count}: ${serial.setting} keeps the run serial; drop it to use up to ${could} workers, each with its own database`;
  return `${count} (${serial.setting}, kept: ${serial.kept})`;
}
