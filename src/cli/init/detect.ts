/**
 * What init reads in a project, each fact with where it came from (`file:line`): the runner, the
 * ORM and its schema source, the engine, the package manager, the scripts that migrate and seed,
 * the env names and the credentials the code uses, and the database service of compose and CI files.
 * Reading only: what to write from these facts is plan.ts.
 */
import { FastTestDbError } from '../../errors.js';
import type { EngineName } from '../../types.js';
import { allSigns, engineBySign } from '../../engines/project-signs.js';
import { CODE, type Found, ProjectFiles, TEST_FILE } from './files.js';
import { findCredentials, findEnvNames, type Credentials, type EnvName } from './scan.js';
import { findServices, type Service } from './services.js';

export type { Found } from './files.js';

export type RunnerName = 'jest' | 'vitest' | 'mocha' | 'node-test';
export type OrmName = 'typeorm' | 'prisma' | 'drizzle';
export type PackageManager = 'npm' | 'yarn' | 'pnpm' | 'bun';

export interface RunnerConfig {
  /** The config file, or package.json when the config is its "jest" key. */
  file: string;
  /** Jest's config as package.json's "jest" key. */
  packageKey?: boolean;
}

export interface TypeormSource {
  /** The module holding the options, relative, without extension (`./src/data-source`). */
  module: string;
  file: string;
  /** How to reach DataSourceOptions from the module: `dataSourceOptions`, `AppDataSource.options`, `default.options`. */
  access: string;
}

export interface PrismaSource {
  schema: string;
  migrations: boolean;
}

export interface DrizzleSource {
  /** The schema module, relative, without extension. */
  schema: string;
  migrationsFolder?: string;
}

export interface Project {
  dir: string;
  files: ProjectFiles;
  pkg: Record<string, unknown>;
  esm: boolean;
  typescript: boolean;
  packageManager: Found<PackageManager>;
  runner: Found<RunnerName>;
  runnerConfig?: RunnerConfig;
  orm?: Found<OrmName>;
  typeorm?: Found<TypeormSource>;
  prisma?: Found<PrismaSource>;
  drizzle?: Found<DrizzleSource>;
  engine?: Found<EngineName>;
  /** Drivers among the dependencies (pg, mysql2, ...). */
  drivers: string[];
  /** package.json scripts that build the schema, and that seed it. */
  migrateScript?: Found<string>;
  seed?: Found<string>;
  migrationsDir?: Found<string>;
  envNames: EnvName[];
  credentials?: Credentials;
  service?: Service;
  /** Where TEST_DATABASE_URL is set (CI, .env files): the library does not read it. */
  testDatabaseUrl: string[];
  /** The runner config's own global setup file, when it has one. */
  globalSetup?: Found<string>;
  /** Where the code loads a .env file with override: true, which puts the old URL back over the worker's. */
  dotenvOverride?: string;
  /** Jest setupFiles that import the app: they run before our setup file, so the app reads the old URL. */
  earlySetupFiles: string[];
}

const DEPS = ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'] as const;

function depLine(files: ProjectFiles, name: string): string {
  return files.whereMatch('package.json', new RegExp(`"${name.replace(/[/.]/g, '\\$&')}"\\s*:`));
}

export const JEST_CONFIGS = [
  'jest.config.js',
  'jest.config.cjs',
  'jest.config.mjs',
  'jest.config.ts',
  'jest.config.cts',
  'jest.config.mts',
];
export const VITEST_CONFIGS = [
  'vitest.config.ts',
  'vitest.config.mts',
  'vitest.config.js',
  'vitest.config.mjs',
  'vitest.config.cts',
  'vitest.config.cjs',
  'vite.config.ts',
  'vite.config.mts',
  'vite.config.js',
  'vite.config.mjs',
];

const stripExt = (p: string) => p.replace(/\.[cm]?[jt]sx?$/, '');
const asModule = (p: string) => `./${stripExt(p.replace(/^\.\//, ''))}`;

export function detect(dir: string): Project {
  const files = new ProjectFiles(dir);
  const text = files.read('package.json');
  if (text === undefined)
    throw new FastTestDbError(
      'UNSUPPORTED',
      `no package.json in ${dir}`,
      'run fast-test-db init in the folder of the package whose tests use the database (or pass --dir)',
    );
  let pkg: Record<string, unknown>;
  try {
    pkg = JSON.parse(text) as Record<string, unknown>;
  } catch (e) {
    throw new FastTestDbError('BAD_OPTION', `package.json in ${dir} is not valid JSON`, 'fix package.json first', { cause: e });
  }
  const deps = new Map<string, string>();
  for (const k of DEPS) for (const [n, v] of Object.entries((pkg[k] as Record<string, string> | undefined) ?? {})) deps.set(n, v);
  const has = (n: string) => deps.has(n);
  const scripts = (pkg.scripts as Record<string, string> | undefined) ?? {};

  const packageManager = detectPackageManager(files, pkg);
  const runner = detectRunner(files, has, scripts, pkg);
  const runnerConfig = detectRunnerConfig(files, runner.value, pkg);
  const typescript = has('typescript') || files.exists('tsconfig.json');
  const drivers = allSigns('drivers').filter(has);

  const project: Project = {
    dir,
    files,
    pkg,
    esm: pkg.type === 'module',
    typescript,
    packageManager,
    runner,
    runnerConfig,
    drivers,
    envNames: [],
    testDatabaseUrl: [],
    earlySetupFiles: [],
  };

  // The ORM, and what builds its schema.
  if (has('typeorm')) {
    project.orm = { value: 'typeorm', from: depLine(files, 'typeorm') };
    project.typeorm = findTypeorm(files);
  } else if (has('@prisma/client') || has('prisma')) {
    project.orm = { value: 'prisma', from: depLine(files, has('@prisma/client') ? '@prisma/client' : 'prisma') };
    project.prisma = findPrisma(files, pkg);
  } else if (has('drizzle-orm')) {
    project.orm = { value: 'drizzle', from: depLine(files, 'drizzle-orm') };
    project.drizzle = findDrizzle(files);
  }

  project.engine = detectEngine(project, files, drivers);
  project.migrationsDir = findMigrationsDir(files, project);
  const { migrate, seed } = findScripts(files, scripts, project);
  project.migrateScript = migrate;
  project.seed = seed;

  const code = files.all().filter((f) => CODE.test(f) && !/\.config\.[cm]?[jt]s$/.test(f));
  const tests = code.filter((f) => TEST_FILE.test(f));
  const connection = code.filter(
    (f) => !TEST_FILE.test(f) && /(data-?source|ormconfig|database|db|orm|prisma|drizzle|config|module)/i.test(f),
  );
  const envFiles = files.all().filter((f) => /(^|\/)\.env(\.[\w.-]+)?$/.test(f) && !/\.example$|\.sample$/.test(f));
  // The connection code first: its names lead the mapping, as they lead the app.
  project.envNames = findEnvNames(files, [...(project.typeorm ? [project.typeorm.value.file] : []), ...connection, ...tests], envFiles);
  project.credentials = findCredentials(files, [...(project.typeorm ? [project.typeorm.value.file] : []), ...connection, ...tests]);
  project.service = findServices(files);
  for (const f of [
    ...envFiles,
    ...files
      .all()
      .filter((f) => /(^|\/)(\.github\/workflows\/.*|\.gitlab-ci|\.circleci\/config|docker-compose[\w.-]*|compose[\w.-]*)\.ya?ml$/.test(f)),
  ]) {
    const at = files.whereMatch(f, /^\s*-?\s*TEST_DATABASE_URL\s*[:=]/m);
    if (at !== f) project.testDatabaseUrl.push(at);
  }
  project.globalSetup = findGlobalSetup(files, project);
  for (const f of code) {
    const at = files.whereMatch(f, /config\(\s*\{[^}]*override\s*:\s*true/);
    if (at !== f && /dotenv/.test(files.read(f) ?? '')) {
      project.dotenvOverride = at;
      break;
    }
  }
  project.earlySetupFiles = findEarlySetupFiles(files, project);
  return project;
}

function detectPackageManager(files: ProjectFiles, pkg: Record<string, unknown>): Found<PackageManager> {
  const locks: Array<[string, PackageManager]> = [
    ['pnpm-lock.yaml', 'pnpm'],
    ['yarn.lock', 'yarn'],
    ['bun.lockb', 'bun'],
    ['bun.lock', 'bun'],
    ['package-lock.json', 'npm'],
    ['npm-shrinkwrap.json', 'npm'],
  ];
  for (const [file, pm] of locks) if (files.exists(file)) return { value: pm, from: file };
  const field = typeof pkg.packageManager === 'string' ? pkg.packageManager.split('@')[0] : undefined;
  if (field === 'pnpm' || field === 'yarn' || field === 'bun' || field === 'npm')
    return { value: field, from: files.whereMatch('package.json', /"packageManager"/) };
  return { value: 'npm', from: 'no lock file: npm' };
}

function detectRunner(
  files: ProjectFiles,
  has: (n: string) => boolean,
  scripts: Record<string, string>,
  pkg: Record<string, unknown>,
): Found<RunnerName> {
  const test = scripts.test ?? '';
  const inScript = (re: RegExp) => re.test(test);
  const testLine = files.whereMatch('package.json', /"test"\s*:/);
  // The test script says which runner the suite runs on; the dependencies break the tie.
  if (inScript(/\bvitest\b/)) return { value: 'vitest', from: testLine };
  if (inScript(/\bjest\b/)) return { value: 'jest', from: testLine };
  if (inScript(/\bmocha\b/)) return { value: 'mocha', from: testLine };
  if (inScript(/\b(node|tsx)\b.*--test\b/)) return { value: 'node-test', from: testLine };
  if (has('vitest')) return { value: 'vitest', from: depLine(files, 'vitest') };
  if (has('jest') || pkg.jest) return { value: 'jest', from: depLine(files, 'jest') };
  if (has('mocha')) return { value: 'mocha', from: depLine(files, 'mocha') };
  throw new FastTestDbError(
    'UNSUPPORTED',
    'found no test runner init knows in package.json (Jest, Vitest, Mocha, or node --test in the test script)',
    'wire the runner by hand (docs/adopting.md); Playwright: globalSetup: "fast-test-db/playwright"',
  );
}

function detectRunnerConfig(files: ProjectFiles, runner: RunnerName, pkg: Record<string, unknown>): RunnerConfig | undefined {
  if (runner === 'jest') {
    const file = files.first(JEST_CONFIGS);
    if (file) return { file };
    if (pkg.jest && typeof pkg.jest === 'object') return { file: 'package.json', packageKey: true };
    return undefined;
  }
  if (runner === 'vitest') {
    const file = VITEST_CONFIGS.find((f) => files.read(f) !== undefined && (f.startsWith('vitest') || /\btest\s*:/.test(files.read(f)!)));
    return file ? { file } : undefined;
  }
  return undefined;
}

/** A `type:` TypeORM gives one of our engines. */
const TYPEORM_TYPE = new RegExp(`\\btype\\s*:\\s*['"](${allSigns('typeormTypes').join('|')})['"]`);

/** The module exporting the TypeORM options: a DataSource file, or ormconfig. */
function findTypeorm(files: ProjectFiles): Found<TypeormSource> | undefined {
  const candidates = files
    .all()
    .filter((f) => CODE.test(f) && !TEST_FILE.test(f) && !/\.d\.ts$/.test(f))
    .map((f) => ({ f, text: files.read(f) ?? '' }))
    .filter(
      ({ text }) =>
        /DataSourceOptions|new DataSource\s*\(|ConnectionOptions/.test(text) || (/\bentities\s*:/.test(text) && TYPEORM_TYPE.test(text)),
    );
  // Prefer a file named for it.
  candidates.sort((a, b) => Number(/data-?source|ormconfig/i.test(b.f)) - Number(/data-?source|ormconfig/i.test(a.f)));
  for (const { f, text } of candidates) {
    const opts = /export\s+(?:const|let)\s+(\w+)\s*(?::\s*(?:DataSourceOptions|ConnectionOptions|[\w.]*Options)[^=]*)?=\s*(?!new\s)/.exec(
      text,
    );
    const typed = /export\s+(?:const|let)\s+(\w+)\s*:\s*(?:DataSourceOptions|PostgresConnectionOptions|MysqlConnectionOptions)/.exec(text);
    const ds = /export\s+(?:const|let)\s+(\w+)\s*(?::\s*DataSource\s*)?=\s*new\s+DataSource\s*\(/.exec(text);
    const def = /export\s+default\s+new\s+DataSource\s*\(/.exec(text);
    const hit = typed ?? (ds ? undefined : opts);
    if (hit && /type\s*:/.test(text)) return { value: { module: asModule(f), file: f, access: hit[1]! }, from: files.where(f, hit.index) };
    if (ds) return { value: { module: asModule(f), file: f, access: `${ds[1]}.options` }, from: files.where(f, ds.index) };
    if (def) return { value: { module: asModule(f), file: f, access: 'default.options' }, from: files.where(f, def.index) };
  }
  for (const f of ['ormconfig.json', 'ormconfig.js', 'ormconfig.ts'])
    if (files.read(f) !== undefined)
      return {
        value: { module: f.endsWith('.json') ? `./${f}` : asModule(f), file: f, access: f.endsWith('.json') ? '' : 'default' },
        from: f,
      };
  return undefined;
}

function findPrisma(files: ProjectFiles, pkg: Record<string, unknown>): Found<PrismaSource> | undefined {
  const fromPkg = (pkg.prisma as { schema?: string } | undefined)?.schema;
  const config = files.first(['prisma.config.ts', 'prisma.config.mts', 'prisma.config.js', 'prisma.config.mjs']);
  const fromConfig = config ? /schema\s*:\s*['"]([^'"]+)['"]/.exec(files.read(config)!)?.[1] : undefined;
  const schema = fromPkg ?? fromConfig ?? (files.exists('prisma/schema.prisma') ? 'prisma/schema.prisma' : undefined);
  if (!schema) return undefined;
  const base = schema.endsWith('.prisma') ? schema.replace(/\/?[^/]+$/, '') : schema;
  const migrations = files.all().some((f) => f.startsWith(`${base ? `${base}/` : ''}migrations/`) && f.endsWith('migration.sql'));
  const from = fromPkg ? files.whereMatch('package.json', /"schema"\s*:/) : fromConfig ? files.whereMatch(config!, /schema\s*:/) : schema;
  return { value: { schema, migrations }, from };
}

function findDrizzle(files: ProjectFiles): Found<DrizzleSource> | undefined {
  const config = files.first(['drizzle.config.ts', 'drizzle.config.mts', 'drizzle.config.js', 'drizzle.config.mjs', 'drizzle.config.json']);
  if (!config) {
    const schema = files.first(['src/schema.ts', 'src/db/schema.ts', 'db/schema.ts', 'src/schema.js', 'src/db/schema.js']);
    return schema ? { value: { schema: asModule(schema) }, from: schema } : undefined;
  }
  const text = files.read(config)!;
  const schemaMatch = /schema\s*:\s*['"]([^'"]+)['"]/.exec(text);
  const out = /out\s*:\s*['"]([^'"]+)['"]/.exec(text)?.[1]?.replace(/^\.\//, '').replace(/\/$/, '') ?? 'drizzle';
  if (!schemaMatch) return undefined;
  let schema = schemaMatch[1]!.replace(/^\.\//, '');
  // A folder or a glob: its index module, when there is one.
  if (!CODE.test(schema) || /\*/.test(schema)) {
    const folder = schema.replace(/\/?\*.*$/, '');
    const index = files.first([`${folder}/index.ts`, `${folder}/index.js`]);
    if (!index) return { value: { schema: '' }, from: files.where(config, schemaMatch.index) };
    schema = index;
  }
  const migrationsFolder = files.exists(`${out}/meta/_journal.json`) ? out : undefined;
  return { value: { schema: asModule(schema), migrationsFolder }, from: files.where(config, schemaMatch.index) };
}

function detectEngine(project: Project, files: ProjectFiles, drivers: string[]): Found<EngineName> | undefined {
  if (project.typeorm) {
    const f = project.typeorm.value.file;
    for (const m of (files.read(f) ?? '').matchAll(/type\s*:\s*['"]([\w-]+)['"]/g)) {
      const engine = engineBySign('typeormTypes', m[1]!);
      if (engine) return { value: engine, from: files.where(f, m.index!) };
    }
  }
  if (project.prisma) {
    const text = files.read(project.prisma.value.schema) ?? '';
    for (const m of text.matchAll(/provider\s*=\s*"([\w-]+)"/g)) {
      const engine = engineBySign('prismaProviders', m[1]!);
      if (engine) return { value: engine, from: files.where(project.prisma.value.schema, m.index!) };
    }
  }
  if (project.orm?.value === 'drizzle') {
    const config = files.first(['drizzle.config.ts', 'drizzle.config.mts', 'drizzle.config.js', 'drizzle.config.mjs']);
    const m = config ? /dialect\s*:\s*['"]([\w-]+)['"]/.exec(files.read(config)!) : null;
    const engine = m ? engineBySign('drizzleDialects', m[1]!) : undefined;
    if (config && m && engine) return { value: engine, from: files.where(config, m.index) };
  }
  const driver = drivers[0];
  if (driver) return { value: engineBySign('drivers', driver)!, from: depLine(files, driver) };
  return undefined;
}

function findMigrationsDir(files: ProjectFiles, project: Project): Found<string> | undefined {
  if (project.drizzle?.value.migrationsFolder) return { value: project.drizzle.value.migrationsFolder, from: project.drizzle.from };
  for (const d of ['migrations', 'db/migrations', 'src/migrations', 'src/db/migrations', 'database/migrations', 'sql'])
    if (files.isDir(d)) return { value: d, from: `${d}/` };
  return undefined;
}

function findScripts(
  files: ProjectFiles,
  scripts: Record<string, string>,
  project: Project,
): { migrate?: Found<string>; seed?: Found<string> } {
  const at = (name: string) => files.whereMatch('package.json', new RegExp(`"${name.replace(/[:.]/g, '\\$&')}"\\s*:`));
  const names = Object.keys(scripts);
  // A script that builds the schema (not one that makes a new migration, nor one that resets a database of the app's).
  const migrate = names.find(
    (n) =>
      /(^|:)(migrate|migration:run|migrations?|prepare|setup|schema:sync|sync|deploy)$/.test(n) &&
      n !== 'prepare' &&
      !/generate|create|new|revert|down|rollback|reset|drop/.test(n) &&
      !/\bgenerate\b|\bcreate\b/.test(scripts[n]!),
  );
  const seedName = names.find((n) => /(^|:)seed$/.test(n));
  const run = (n: string) => (project.packageManager.value === 'npm' ? `npm run ${n}` : `${project.packageManager.value} run ${n}`);
  const out: { migrate?: Found<string>; seed?: Found<string> } = {};
  if (migrate) out.migrate = { value: run(migrate), from: at(migrate) };
  if (seedName) out.seed = { value: run(seedName), from: at(seedName) };
  // Prisma's own seed command (package.json "prisma.seed", or prisma.config's migrations.seed).
  const prismaSeed = (project.pkg.prisma as { seed?: string } | undefined)?.seed;
  if (!out.seed && prismaSeed) out.seed = { value: prismaSeed, from: files.whereMatch('package.json', /"seed"\s*:/) };
  const config = files.first(['prisma.config.ts', 'prisma.config.mts', 'prisma.config.js', 'prisma.config.mjs']);
  const configSeed = config ? /seed\s*:\s*['"]([^'"]+)['"]/.exec(files.read(config)!) : null;
  if (!out.seed && config && configSeed) out.seed = { value: configSeed[1]!, from: files.where(config, configSeed.index) };
  return out;
}

function findGlobalSetup(files: ProjectFiles, project: Project): Found<string> | undefined {
  const cfg = project.runnerConfig;
  if (!cfg) return undefined;
  if (cfg.packageKey) {
    const gs = (project.pkg.jest as { globalSetup?: string }).globalSetup;
    return gs ? { value: gs.replace('<rootDir>/', ''), from: files.whereMatch('package.json', /"globalSetup"/) } : undefined;
  }
  const text = files.read(cfg.file) ?? '';
  const m = /globalSetup\s*:\s*\[?\s*['"]([^'"]+)['"]/.exec(text);
  return m ? { value: m[1]!.replace('<rootDir>/', '').replace(/^\.\//, ''), from: files.where(cfg.file, m.index) } : undefined;
}

function findEarlySetupFiles(files: ProjectFiles, project: Project): string[] {
  if (project.runner.value !== 'jest' || !project.runnerConfig) return [];
  const text = project.runnerConfig.packageKey
    ? JSON.stringify((project.pkg.jest as object) ?? {})
    : (files.read(project.runnerConfig.file) ?? '');
  const list = /["']?setupFiles["']?\s*:\s*\[([^\]]*)\]/.exec(text)?.[1] ?? '';
  const out: string[] = [];
  for (const m of list.matchAll(/['"](?:<rootDir>\/|\.\/)?([^'"]+)['"]/g)) {
    const f = files.first([m[1]!, `${m[1]}.ts`, `${m[1]}.js`]);
    // A file that imports the app's own modules (not only dotenv or a polyfill).
    if (f && /(from|require\()\s*['"]\.\.?\/(?:\.\.\/)*src\//.test(files.read(f) ?? '')) out.push(f);
  }
  return out;
}

export { CODE, TEST_FILE };
