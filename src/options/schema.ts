/**
 * The schema of every option and env var: what each accepts, checked once where a public function
 * or a runner is entered, so that a typo or a bad value is one BAD_OPTION naming what is accepted,
 * before any server starts or any process spins on it. Hand-written: about twenty rules, and a
 * schema library would add a dependency for less clear messages (we want "did you mean").
 */
import { accessSync, constants, statfsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { AppEnvRole, FastTestDbConfig } from '../types.js';
import { APP_ENV_ROLES } from '../util/app-env.js';
import { FastTestDbError } from '../errors.js';

/** What a value must be, in words, or undefined when it is fine. */
type Rule = (value: unknown) => string | undefined;

const ENGINES = ['postgres', 'mysql'] as const;
const SERVER_MODES = ['auto', 'embedded', 'external', 'container'] as const;
const ISOLATIONS = ['worker', 'file', 'test'] as const;
const CLONE_STRATEGIES = ['file_copy', 'wal_log'] as const;

/** A value as the user wrote it: strings quoted, so that '5000' does not read as 5000. */
export const show = (v: unknown): string =>
  typeof v === 'string' ? JSON.stringify(v) : typeof v === 'function' ? 'a function' : String(JSON.stringify(v) ?? v);
const list = (values: readonly unknown[]): string => values.map((v) => (typeof v === 'string' ? `'${v}'` : String(v))).join(', ');

const text: Rule = (v) => (typeof v === 'string' && v !== '' ? undefined : 'a non-empty string');
const flag: Rule = (v) => (typeof v === 'boolean' ? undefined : 'true or false');
const oneOf =
  (...values: readonly unknown[]): Rule =>
  (v) =>
    values.includes(v) ? undefined : `one of ${list(values)}`;
const int =
  (min: number, max = Number.MAX_SAFE_INTEGER, unit = ''): Rule =>
  (v) =>
    typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max
      ? undefined
      : `a whole number${unit} from ${min}${max === Number.MAX_SAFE_INTEGER ? ' up' : ` to ${max}`}${typeof v === 'string' ? ' (a number, not a string)' : ''}`;
const ms = (min: number) => int(min, Number.MAX_SAFE_INTEGER, ' of milliseconds');
const texts: Rule = (v) =>
  (typeof v === 'string' && v !== '') || (Array.isArray(v) && v.length > 0 && v.every((s) => typeof s === 'string' && s !== ''))
    ? undefined
    : 'a string or a non-empty array of strings';
/** migrate and seed: a function, a command, or { module, export? }. */
const migrateRule = (v: unknown, what: string): string | undefined =>
  typeof v === 'function' ||
  (typeof v === 'string' && v.trim() !== '') ||
  (typeof v === 'object' &&
    v !== null &&
    typeof (v as { module?: unknown }).module === 'string' &&
    ['undefined', 'string'].includes(typeof (v as { export?: unknown }).export))
    ? undefined
    : `a function (url, ctx) => …, a command such as 'npm run ${what}', or { module: './db/${what}.ts' }`;
const size: Rule = (v) => (typeof v === 'string' && /^\d+[KMG]?$/i.test(v) ? undefined : "a size such as '256M' or '1G'");

/**
 * Every key an options object may hold. Typed over the options' own interfaces, so that a new
 * option cannot be added without its rule here.
 */
export const OPTION_RULES: { readonly [K in keyof Required<FastTestDbConfig>]: Rule } = {
  engine: oneOf(...ENGINES),
  server: oneOf(...SERVER_MODES),
  url: (v) => (typeof v === 'string' && /^[a-z]+:\/\//i.test(v) ? undefined : 'a URL such as postgres://user@localhost:5432/postgres'),
  allowRemote: flag,
  migrate: (v) => migrateRule(v, 'migrate'),
  seed: (v) => migrateRule(v, 'seed'),
  migrateTimeoutMs: ms(1),
  // Adapters join their key with the caller's: an empty one means none.
  cacheKey: (v) => (typeof v === 'string' ? undefined : 'a string'),
  migrationFiles: texts,
  worker: text,
  runId: text,
  shard: text,
  suffix: text,
  prefix: (v) => (typeof v === 'string' && /^[a-z][a-z0-9]{0,15}$/.test(v) ? undefined : "1-16 lowercase letters and digits, e.g. 'ftdb'"),
  unlogged: oneOf(true, false, 'auto'),
  reuse: flag,
  idleTimeoutMs: ms(1),
  graceMs: ms(0),
  binDir: text,
  dataRoot: text,
  cacheDataDir: flag,
  cacheDir: text,
  locale: text,
  maxConnections: int(2, 10_000),
  keepTemplates: int(1, 1000),
  bufferPoolSize: size,
  redoLogSize: size,
  image: text,
  cpuPairing: flag,
  isolation: oneOf(...ISOLATIONS),
  envVar: texts,
  env: (v) =>
    v !== null &&
    typeof v === 'object' &&
    !Array.isArray(v) &&
    Object.entries(v).every(([k, r]) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(k) && APP_ENV_ROLES.includes(r as AppEnvRole))
      ? undefined
      : `env var names mapped to ${list(APP_ENV_ROLES)}, e.g. { DB_HOST: 'host', DB_PORT: 'port', DB_PASSWORD: 'password' }`,
  login: (v) => {
    const o = v as Record<string, unknown> | null;
    const ok =
      o !== null &&
      typeof o === 'object' &&
      !Array.isArray(o) &&
      Object.keys(o).every((k) => ['user', 'password', 'database'].includes(k)) &&
      text(o.user) === undefined &&
      text(o.password) === undefined &&
      (o.database === undefined || text(o.database) === undefined);
    // A login with no password would be open to every local user; the value itself is never shown.
    return ok ? undefined : "{ user, password, database? }, each a non-empty string, e.g. { user: 'test', password: 'test' }";
  },
  quiet: flag,
  keepSerial: flag,
  adapter: (v) =>
    typeof v === 'function' || (v !== null && typeof v === 'object') ? undefined : 'an adapter object, or a function returning one',
};

const KNOWN = Object.keys(OPTION_RULES);

/** Levenshtein distance, for "did you mean". */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1]!.toLowerCase() === b[j - 1]!.toLowerCase() ? 0 : 1));
    prev = row;
  }
  return prev[b.length]!;
}

/** The closest of `candidates`, when it is close enough to be what was meant. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const d = c.toLowerCase().startsWith(word.toLowerCase()) && word.length >= 4 ? 1 : editDistance(word, c);
    if (d < bestDistance) [best, bestDistance] = [c, d];
  }
  return best !== undefined && bestDistance <= Math.max(2, Math.floor(word.length / 3)) ? best : undefined;
}

/**
 * Refuses unknown keys and bad values in an options object. `where` says where the options came
 * from (a function's name, a config file), for the message. `adapter` belongs to config files only.
 */
export function checkOptions(options: object, where: string, { config = false } = {}): void {
  const keys = config ? KNOWN : KNOWN.filter((k) => k !== 'adapter');
  for (const [key, value] of Object.entries(options)) {
    if (value === undefined) continue;
    if (!keys.includes(key)) {
      const near = closest(key, keys);
      throw new FastTestDbError(
        'BAD_OPTION',
        `${where}: unknown option "${key}"${near ? ` (did you mean "${near}"?)` : ''}`,
        near ? `rename "${key}" to "${near}"` : `use one of the options: ${keys.join(', ')}`,
      );
    }
    const wanted = OPTION_RULES[key as keyof typeof OPTION_RULES](value);
    if (wanted) throw badValue(`${where}: option ${key} is ${show(secretless(key, value))}`, wanted, `${key}: `, value);
  }
}

/** A message never shows a password: `login`'s is written as "…" (errors end up in CI logs). */
function secretless(key: string, value: unknown): unknown {
  if (key !== 'login') return value;
  // A string may be 'user:password'.
  if (typeof value === 'string') return '…';
  return value !== null && typeof value === 'object' && 'password' in value ? { ...value, password: '…' } : value;
}

function badValue(what: string, wanted: string, lead: string, value: unknown): FastTestDbError {
  const enumValues = /^one of (.*)$/.exec(wanted)?.[1]?.split(', ');
  // A number written as a string ('5000') is most likely meant as that number.
  const number = typeof value === 'string' && /^\d+$/.test(value.trim()) && wanted.startsWith('a whole number') ? value.trim() : undefined;
  const near = number
    ? `${number} (a number, not a string)`
    : enumValues && typeof value === 'string'
      ? closest(`'${value}'`, enumValues)
      : undefined;
  return new FastTestDbError(
    'BAD_OPTION',
    `${what}, not ${wanted}${near && !number ? ` (did you mean ${near}?)` : ''}`,
    near ? `${lead}${near}` : `give ${lead.replace(/: $|=$/, '')} ${wanted}`,
  );
}

/** An on/off env var: 1/0, true/false, yes/no (any case); empty or unset is `fallback`. */
export function envFlag(name: string, value: string | undefined, fallback: boolean): boolean {
  if (value === undefined || value.trim() === '') return fallback;
  const v = value.trim().toLowerCase();
  if (v === '1' || v === 'true' || v === 'yes') return true;
  if (v === '0' || v === 'false' || v === 'no') return false;
  const near = closest(v, ['true', 'false', 'yes', 'no']);
  throw new FastTestDbError(
    'BAD_OPTION',
    `${name}=${JSON.stringify(value)} is not on or off${near ? ` (did you mean ${near}?)` : ''}`,
    `set ${name} to 1, 0, true, false, yes or no`,
  );
}

/** An env var that takes one of `values`; empty or unset is undefined. */
export function envChoice<T extends string>(name: string, value: string | undefined, values: readonly T[]): T | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  if ((values as readonly string[]).includes(value.trim())) return value.trim() as T;
  throw badValue(`${name}=${JSON.stringify(value)} is not accepted`, `one of ${list(values)}`, `${name}=`, value.trim());
}

export const ENV_CHOICES = {
  FAST_TEST_DB_ENGINE: ENGINES,
  FAST_TEST_DB_SERVER_MODE: SERVER_MODES,
  FAST_TEST_DB_ISOLATION: ISOLATIONS,
  FAST_TEST_DB_CLONE_STRATEGY: CLONE_STRATEGIES,
} as const;

/** Filesystems whose files are not files: a server or a cache there fails, or spins, forever. */
const PSEUDO_FILESYSTEMS = new Map<number, string>([
  [0x9fa0, 'proc'],
  [0x62656572, 'sysfs'],
  [0x1cd1, 'devpts'],
  [0x27e0eb, 'cgroup'],
  [0x63677270, 'cgroup2'],
  [0x64626720, 'debugfs'],
  [0x74726163, 'tracefs'],
  [0x73636673, 'securityfs'],
  [0x42494e4d, 'binfmt_misc'],
  [0xcafe4a11, 'bpf'],
  [0x6e736673, 'nsfs'],
]);

/**
 * A directory we will create things in: its nearest existing folder must be a folder we can write
 * to, on a real filesystem (not /proc, /sys and the like). `what` names the option or env var.
 */
export function checkWritableDir(path: string, what: string): void {
  const full = resolve(path);
  let dir = full;
  for (;;) {
    try {
      if (!statSync(dir).isDirectory())
        throw new FastTestDbError(
          'BAD_OPTION',
          `${what} is ${JSON.stringify(path)}, but ${dir} is not a folder`,
          `point ${what} at a folder`,
        );
      break;
    } catch (e) {
      if (e instanceof FastTestDbError) throw e;
      const parent = dirname(dir);
      if (parent === dir) throw e;
      dir = parent;
    }
  }
  let type: number | undefined;
  try {
    type = statfsSync(dir).type;
  } catch {
    type = undefined; // no statfs here (an old kernel, another platform): the write check below still holds.
  }
  const pseudo = type === undefined ? undefined : PSEUDO_FILESYSTEMS.get(type);
  if (pseudo)
    throw new FastTestDbError(
      'BAD_OPTION',
      `${what} is ${JSON.stringify(path)}, which is on ${pseudo} (${dir}), not a filesystem that holds files`,
      `point ${what} at a folder on a disk or a tmpfs, e.g. /dev/shm or /tmp`,
    );
  try {
    accessSync(dir, constants.W_OK | constants.X_OK);
  } catch (e) {
    throw new FastTestDbError(
      'BAD_OPTION',
      `${what} is ${JSON.stringify(path)}, but ${dir} is not writable by this user`,
      `point ${what} at a folder this user may write to, or make ${dir} writable`,
      { cause: e },
    );
  }
}
