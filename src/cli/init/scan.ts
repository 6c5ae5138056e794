/**
 * What the app's code reads to reach its database: the env names (process.env.X, ConfigService's
 * get('X'), the names a test .env file sets) and credentials written in the code itself, literal or
 * as the fallback of an env name. Patterns over the text, not a parser: a name init misses is one
 * more `env` entry by hand, and the report says which files it read.
 */
import { allSigns } from '../../engines/project-signs.js';
import type { Found, ProjectFiles } from './files.js';

/** What an env name carries, as the `env` option spells it. */
export type EnvRole = 'url' | 'host' | 'port' | 'user' | 'password' | 'database';

export interface EnvName {
  name: string;
  role: EnvRole;
  from: string;
}

export interface Credentials {
  user?: Found<string>;
  password?: Found<string>;
  database?: Found<string>;
  /** Each came from `process.env.X || 'literal'`, where an empty value would send the literal. */
  fallback: boolean;
  /** The env name each fallback stands behind (`DB_PASSWORD` of `process.env.DB_PASSWORD || 'pass'`). */
  behind: Partial<Record<'user' | 'password' | 'database', string>>;
}

/** Words that make an env name one about the database: generic ones, and each engine's. */
const DATABASE_WORDS = new RegExp(`(^|_)(DB|DATABASE|SQL|TYPEORM|PRISMA|${allSigns('envWords').join('|')})(_|$)|^PG|DB$|DB_`);

/** The role of a database env name, or undefined when the name is not about the database. */
export function roleOf(name: string): EnvRole | undefined {
  if (name.startsWith('FAST_TEST_DB')) return undefined;
  if (!DATABASE_WORDS.test(name)) return undefined;
  if (/(URL|URI|DSN|CONNECTION_STRING)$/.test(name)) return 'url';
  if (/HOST(NAME)?$/.test(name)) return 'host';
  if (/PORT$/.test(name)) return 'port';
  if (/(USER|USERNAME|LOGIN)$/.test(name)) return 'user';
  if (/(PASS|PASSWORD|PWD)$/.test(name)) return 'password';
  if (/(NAME|DATABASE|DB)$/.test(name)) return 'database';
  return undefined;
}

const READS = [
  /process\.env\.([A-Z][A-Z0-9_]*)/g,
  /process\.env\[['"]([A-Z][A-Z0-9_]*)['"]\]/g,
  /import\.meta\.env\.([A-Z][A-Z0-9_]*)/g,
  /\.get(?:<[^>]*>)?\(\s*['"]([A-Z][A-Z0-9_]*)['"]/g,
  /\benv\(\s*['"]([A-Z][A-Z0-9_]*)['"]/g,
];

export function findEnvNames(files: ProjectFiles, code: string[], envFiles: string[]): EnvName[] {
  const found = new Map<string, EnvName>();
  const add = (name: string, from: string) => {
    const role = roleOf(name);
    if (role && !found.has(name)) found.set(name, { name, role, from });
  };
  for (const f of [...new Set(code)]) {
    const text = files.read(f) ?? '';
    // In the order the file reads them, whichever way it reads each.
    const reads = READS.flatMap((re) => [...text.matchAll(re)]).sort((x, y) => x.index! - y.index!);
    for (const m of reads) add(m[1]!, files.where(f, m.index!));
  }
  // A test env file names what the tests read even when the code reads it through a helper.
  for (const f of envFiles.filter((f) => /\.env\.test/.test(f))) {
    const text = files.read(f) ?? '';
    for (const m of text.matchAll(/^\s*(?:export\s+)?([A-Z][A-Z0-9_]*)\s*=/gm)) add(m[1]!, files.where(f, m.index!));
  }
  return [...found.values()];
}

const LITERAL = (key: string) =>
  new RegExp(
    `\\b(?:${key})\\s*:\\s*(?:(process\\.env\\.[A-Z0-9_]+|[\\w.]+\\.get(?:<[^>]*>)?\\([^)]*\\))\\s*(\\|\\||\\?\\?)\\s*)?['"\`]([^'"\`$]*)['"\`]`,
    'g',
  );

/**
 * Credentials the code spells out: `username: 'test'`, or `password: process.env.DB_PASSWORD || 'pass'`.
 * A literal only after `??` is left out (a mapped env name replaces it); after `||`, it is kept,
 * because an empty password in the env would make the app send the literal.
 */
export function findCredentials(files: ProjectFiles, code: string[]): Credentials | undefined {
  const creds: Credentials = { fallback: false, behind: {} };
  for (const f of [...new Set(code)]) {
    const text = files.read(f) ?? '';
    if (!/password|username|user\s*:/.test(text)) continue;
    for (const [field, key] of [
      ['user', 'username|user'],
      ['password', 'password'],
      ['database', 'database'],
    ] as const) {
      if (creds[field]) continue;
      for (const m of text.matchAll(LITERAL(key))) {
        const [, fromEnv, op, value] = m;
        if (fromEnv && op === '??') continue;
        creds[field] = { value: value!, from: files.where(f, m.index!) };
        if (fromEnv) {
          creds.fallback = true;
          const name = /([A-Z][A-Z0-9_]*)['"]?\)?$/.exec(fromEnv)?.[1];
          if (name) creds.behind[field] = name;
        }
        break;
      }
    }
  }
  return creds.user || creds.password ? creds : undefined;
}
