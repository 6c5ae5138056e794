/**
 * From what detect.ts found to what init writes: the template recipe (an ORM adapter, or the app's
 * own migrate and seed commands), the env mapping, where the options go (the runner
 * wrapper for Jest and Vitest, fast-test-db.config.* for Mocha and node:test), the install line,
 * and what is left to do by hand. Decisions only: the text of the files is render.ts.
 */
import { engineFor } from '../../engines/index.js';
import { otherEngines, PROJECT_SIGNS } from '../../engines/project-signs.js';
import type { EngineName } from '../../types.js';
import type { Found, Project, RunnerName } from './detect.js';
import type { EnvRole } from './scan.js';

export type Recipe =
  | { kind: 'typeorm'; module: string; access: string }
  | { kind: 'prisma'; schema: string; dbPush: boolean }
  | { kind: 'drizzle'; schema: string; migrationsFolder?: string };

export interface Inferred {
  what: string;
  value: string;
  from: string;
}

export interface Plan {
  runner: RunnerName;
  recipe?: Recipe;
  migrate?: string;
  migrationFiles?: string[];
  seed?: string;
  engine?: EngineName;
  env?: Record<string, EnvRole>;
  /** The login the code spells out (the `login` option). */
  login?: { user: string; password: string; database?: string };
  /** The runner config's global setup, dropped because the template replaces what it did. */
  dropGlobalSetup?: string;
  inferred: Inferred[];
  /** What init could not do: each one line for the user. */
  left: string[];
  /** Optional steps that make the suite faster, not needed for it to pass. */
  notes: string[];
  install?: string;
}

const GLOBAL_SETUP_MIGRATES =
  /synchronize\s*\(|runMigrations|\bmigrate\s*\(|migrate (deploy|reset|dev)|db push|DROP SCHEMA|schema:sync|migration:run|CREATE DATABASE|createdb/i;
const GLOBAL_SETUP_MORE = /\bgenerate\b|\bbuild\b|fixtures|writeFile|listen\s*\(|\bspawn\b/i;

export function plan(p: Project): Plan {
  const out: Plan = { runner: p.runner.value, inferred: [], left: [], notes: [] };
  const say = (what: string, value: string, from: string) => out.inferred.push({ what, value, from });
  say('runner', p.runner.value, p.runner.from);
  say('package manager', p.packageManager.value, p.packageManager.from);
  if (p.runnerConfig)
    say('runner config', p.runnerConfig.packageKey ? 'package.json "jest" key' : p.runnerConfig.file, p.runnerConfig.file);
  if (p.orm) say('orm', p.orm.value, p.orm.from);

  const engine: Found<EngineName> | undefined = p.engine ?? p.service?.engine;
  if (engine) say('engine', engine.value, engine.from);
  if (p.service) {
    const s = p.service;
    say('database service', `${s.engine.value}${s.major ? ` ${s.major}` : ''}`, s.engine.from);
    if (s.user) say('service user', s.user.value, s.user.from);
    if (s.password) say('service password', s.password.value, s.password.from);
    const pkg = PROJECT_SIGNS[s.engine.value].serverPackage;
    if (s.major && pkg)
      out.notes.push(
        `the service runs ${s.engine.value} ${s.major} (${s.engine.from}): ${pkg} gives the major it installs; to match, install its platform package at ${s.major}.x (docs/install.md)`,
      );
  }

  // The template recipe.
  const syncScript = p.migrateScript && /schema:sync|synchronize/.test(scriptBody(p, p.migrateScript.value));
  if (p.orm?.value === 'typeorm' && p.typeorm && !syncScript) {
    out.recipe = { kind: 'typeorm', module: p.typeorm.value.module, access: p.typeorm.value.access };
    say('template', `typeormTemplate(${p.typeorm.value.access || 'options'} of ${p.typeorm.value.module})`, p.typeorm.from);
  } else if (p.orm?.value === 'prisma' && p.prisma) {
    out.recipe = { kind: 'prisma', schema: p.prisma.value.schema, dbPush: !p.prisma.value.migrations };
    say(
      'template',
      p.prisma.value.migrations ? `prismaTemplate, ${p.prisma.value.schema} and its migrations` : 'prismaTemplate, db push (no migrations)',
      p.prisma.from,
    );
  } else if (p.orm?.value === 'drizzle' && p.drizzle?.value.schema) {
    out.recipe = { kind: 'drizzle', schema: p.drizzle.value.schema, migrationsFolder: p.drizzle.value.migrationsFolder };
    say(
      'template',
      `drizzleTemplate(${p.drizzle.value.schema}${p.drizzle.value.migrationsFolder ? `, ${p.drizzle.value.migrationsFolder}/` : ", the schema's DDL"})`,
      p.drizzle.from,
    );
  } else if (p.migrateScript) {
    out.migrate = p.migrateScript.value;
    say('migrate', `'${p.migrateScript.value}'`, p.migrateScript.from);
    const globs = migrationGlobs(p);
    if (globs.length) {
      out.migrationFiles = globs;
      say('migration files', globs.join(', '), p.migrationsDir?.from ?? 'entity files');
    } else out.left.push('say what the migrate command reads: migrationFiles (globs), or the template is rebuilt every run');
  } else if (p.orm?.value === 'drizzle') {
    out.left.push(
      `${p.drizzle?.from ?? 'drizzle.config'}: the schema is a folder or glob without an index module: pass adapter: () => drizzleTemplate({ schema }) with the schema imported`,
    );
  } else if (p.orm?.value === 'typeorm') {
    // NestJS apps often spell the options inline in TypeOrmModule.forRoot({...}): nothing to import them from.
    const inline = p.files.all().find((f) => /TypeOrmModule\.forRoot(Async)?\(/.test(p.files.read(f) ?? ''));
    const at = inline ? p.files.whereMatch(inline, /TypeOrmModule\.forRoot(Async)?\(/) : undefined;
    out.left.push(
      `found no exported TypeORM DataSource or options${at ? ` (${at} spells them inline)` : ''}: move them into an exported object (e.g. dataSourceOptions in src/data-source.ts), use it there, and run init again`,
    );
  } else {
    out.left.push(
      'found no migrate step (an ORM, or a migrate script in package.json): write migrate and migrationFiles (docs/adopting.md, step 3)',
    );
  }
  if (p.seed) {
    out.seed = p.seed.value;
    say('seed', `'${p.seed.value}'`, p.seed.from);
  }
  // A command knows no engine; the adapters say theirs.
  if (engine && !out.recipe && !PROJECT_SIGNS[engine.value].isDefault) out.engine = engine.value;
  const serverNote = engine && PROJECT_SIGNS[engine.value].serverNote;
  if (serverNote) out.notes.push(serverNote);
  if (!engine && !out.recipe) out.notes.push('no driver or database service found: the engine is PostgreSQL (the default)');

  // The env names the app reads, less the ones of another engine than this run's.
  const others = otherEngines(engine?.value ?? 'postgres');
  const other = new RegExp(`(^|_)(${others.flatMap((e) => PROJECT_SIGNS[e].envWords).join('|')})`);
  const names = p.envNames.filter((n) => !other.test(n.name));
  const otherNames = p.envNames.filter((n) => other.test(n.name));
  for (const n of names) say('env', `${n.name} → ${n.role}`, n.from);
  if (otherNames.length)
    out.left.push(
      `the code also reads ${otherNames.map((n) => `${n.name} (${n.from})`).join(', ')}, of another engine: a run serves one engine, so those tests need their own run (FAST_TEST_DB_ENGINE=${others.join(' or ')})`,
    );
  if (names.some((n) => n.name !== 'DATABASE_URL')) out.env = Object.fromEntries(names.map((n) => [n.name, n.role]));
  for (const at of p.testDatabaseUrl)
    out.notes.push(
      `${at} sets TEST_DATABASE_URL: fast-test-db does not read it (its own is FAST_TEST_DB_URL), so the tests get a server of their own`,
    );

  // Credentials written in the code. Behind an env name the mapping fills (`DB_PASSWORD || 'pass'`),
  // they are never used: our servers' logins have passwords, so the name is never empty. Spelled
  // out (or behind a name nothing fills), they are sent: the run makes that login (`login`).
  const c = p.credentials;
  if (c && (c.user || c.password)) {
    const filled = new Set(names.map((n) => n.name));
    const sent = (field: 'user' | 'password' | 'database') => c[field] !== undefined && !filled.has(c.behind[field] ?? '');
    const parts = [c.user, c.password].filter((x) => x !== undefined);
    const from = parts.map((x) => x.from).join(', ');
    const admin = engineFor(engine?.value ?? 'postgres').urls.defaults({}).user;
    const namesDatabase = c.database && sent('database') && !names.some((n) => n.role === 'database');
    if (!sent('user') && !sent('password')) say('credentials', 'fallbacks of env names the env mapping fills: never used', from);
    else if (c.user && c.password && c.user.value !== admin) {
      out.login = { user: c.user.value, password: c.password.value };
      say('login', `${c.user.value}, and its password, spelled out in the code`, from);
      if (out.migrate)
        out.notes.push(
          `the migrate command runs before the run makes the login: if it connects with the login ${from} spells out, read user and password from env names there (docs/adopting.md, "A login written in the code")`,
        );
      // The login reaches the run's server only where the file that spells it out takes the
      // server's address from env names too (a URL, or a host and a port).
      const fileOf = (at: string) => at.replace(/:\d+$/, '');
      const here = names.filter((n) => parts.some((x) => fileOf(x.from) === fileOf(n.from)));
      const reads = (role: EnvRole) => here.some((n) => n.role === 'url' || n.role === role);
      if (!reads('host') || !reads('port'))
        out.left.push(
          `${from}: the code spells out its login but reads no host or port from env names: read them (process.env.DB_HOST, process.env.DB_PORT) and run init again, which maps them to the run's server`,
        );
      if (namesDatabase) {
        out.login.database = c.database!.value;
        say('login database', c.database!.value, c.database!.from);
        out.notes.push(
          `${c.database!.from} names the database '${c.database!.value}': the run's workers share it (login.database); read its name from an env name in the env mapping to give each worker its own, or run one worker`,
        );
      }
    } else
      out.left.push(
        c.user?.value === admin
          ? `${from} log in as ${admin}, the admin of the server fast-test-db starts, whose password it keeps: read user and password from env names (process.env.DB_USERNAME, process.env.DB_PASSWORD) and run init again, which maps them to the worker's login`
          : `${from} ${parts.length > 1 ? 'write' : 'writes'} part of the login (${parts.map((x) => x.value).join(' / ')}) into the code: spell out both user and password, or read both from env names (process.env.DB_USERNAME, process.env.DB_PASSWORD), and run init again`,
      );
    if (namesDatabase && !out.login)
      out.left.push(
        `${c.database!.from} names the database '${c.database!.value}': read it from an env name in the env mapping, since each worker has a database of its own`,
      );
  }

  // The runner config's own global setup: dropped when all it did was build the shared database's schema.
  if (p.globalSetup) {
    const text = p.files.read(p.globalSetup.value) ?? p.files.first([`${p.globalSetup.value}.ts`, `${p.globalSetup.value}.js`]) ?? '';
    const body = p.files.read(p.globalSetup.value) ?? (text ? (p.files.read(text) ?? '') : '');
    if (GLOBAL_SETUP_MIGRATES.test(body) && !GLOBAL_SETUP_MORE.test(body)) {
      out.dropGlobalSetup = p.globalSetup.value;
      say(
        'old global setup',
        `${p.globalSetup.value}: built the shared database's schema, which the template replaces`,
        p.globalSetup.from,
      );
    } else if (GLOBAL_SETUP_MIGRATES.test(body))
      out.left.push(
        `${p.globalSetup.value} (${p.globalSetup.from}) builds the schema and does more: keep the rest in a global setup of its own and drop the schema step (docs/adopting.md, "What else your global setup did")`,
      );
    else if (p.runner.value === 'jest')
      out.left.push(
        `${p.globalSetup.value} (${p.globalSetup.from}): Jest takes one globalSetup; call fast-test-db's from it (docs/adopting.md, "What else your global setup did")`,
      );
  }

  if (p.dotenvOverride)
    out.left.push(
      `${p.dotenvOverride} loads .env with override: true, which puts the shared database's URL back over the worker's: drop override`,
    );
  for (const f of p.earlySetupFiles)
    out.left.push(
      `${f} is a Jest setupFiles entry that imports the app, which then reads its env before fast-test-db's setup file sets it: list it under setupFilesAfterEnv`,
    );

  // One worker was the rule on a shared database; no longer needed.
  out.notes.push(...serialNotes(p));

  out.install = installLine(p, engine?.value, out);
  return out;
}

function scriptBody(p: Project, command: string): string {
  const name = command.replace(/^(npm|yarn|pnpm|bun) run /, '');
  return (p.pkg.scripts as Record<string, string> | undefined)?.[name] ?? '';
}

function migrationGlobs(p: Project): string[] {
  const globs: string[] = [];
  if (p.migrationsDir) globs.push(`${p.migrationsDir.value}/**`);
  // What TypeORM's synchronize reads: the entities.
  const entities = p.files
    .all()
    .filter((f) => /\.entity\.[cm]?[jt]s$/.test(f) || (/@Entity\(/.test(p.files.read(f) ?? '') && /\.[cm]?[jt]s$/.test(f)));
  for (const dir of new Set(entities.map((f) => f.replace(/\/[^/]+$/, ''))))
    globs.push(
      `${dir}/*.${entities
        .find((f) => f.startsWith(dir))!
        .split('.')
        .pop()}`,
    );
  if (p.prisma) globs.push(p.prisma.value.schema);
  return [...new Set(globs)];
}

/** A command-line flag wins over the config, so it is the user's to remove; withFastTestDb drops the config's own (runners/shared/serial.ts). */
function serialNotes(p: Project): string[] {
  const out: string[] = [];
  const test = (p.pkg.scripts as Record<string, string> | undefined)?.test ?? '';
  if (/--runInBand|(^|\s)-i(\s|$)|--maxWorkers[= ]1\b|-w[= ]1\b|--no-file-parallelism|--poolOptions\.\w+\.singleFork/.test(test))
    out.push(
      `${p.files.whereMatch('package.json', /"test"\s*:/)} (${test}): each worker has its own database now; remove it to run files in parallel`,
    );
  const cfg = p.runnerConfig && !p.runnerConfig.packageKey ? p.runnerConfig.file : undefined;
  if (cfg) {
    const m = /(maxWorkers\s*:\s*1\b|fileParallelism\s*:\s*false|singleFork\s*:\s*true)/.exec(p.files.read(cfg) ?? '');
    // singleFork is Vitest 3's (Vitest 4 ignores poolOptions): withFastTestDb leaves it.
    const what = (setting: string) =>
      setting.startsWith('singleFork')
        ? 'remove it to run files in parallel'
        : 'withFastTestDb drops it, and the runner uses its default number of workers (keepSerial: true keeps it)';
    if (m) out.push(`${p.files.where(cfg, m.index)} (${m[1]}): each worker has its own database now; ${what(m[1]!)}`);
  }
  return out;
}

function installLine(p: Project, engine: EngineName | undefined, plan: Plan): string | undefined {
  const deps = new Set<string>();
  for (const k of ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'])
    for (const n of Object.keys((p.pkg[k] as Record<string, string> | undefined) ?? {})) deps.add(n);
  const want = ['fast-test-db'];
  const signs = PROJECT_SIGNS[engine ?? 'postgres'];
  if (signs.serverPackage) want.push(signs.serverPackage);
  // Our own connections take one driver; Prisma's driver adapter brings it along.
  const viaPrisma = plan.recipe?.kind === 'prisma' && [...deps].some((d) => d.startsWith('@prisma/adapter-'));
  if (!viaPrisma) want.push(signs.adminDriver);
  if (p.runner.value !== 'vitest' && p.runner.value !== 'jest' && p.typescript && !deps.has('tsx')) want.push('tsx');
  const missing = want.filter((n) => !deps.has(n));
  if (!missing.length) return undefined;
  const add = { npm: 'npm install --save-dev', yarn: 'yarn add --dev', pnpm: 'pnpm add --save-dev', bun: 'bun add --dev' }[
    p.packageManager.value
  ];
  return `${add} ${missing.join(' ')}`;
}
