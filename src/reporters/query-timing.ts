/**
 * Time spent waiting on the database, measured cheaply at the drivers' query entry points: pg's
 * Client#query, postgres.js's Query#handle, mysql2's Connection#query/#execute, mysqljs's Connection#query and mariadb's core
 * connection (pools, promise wrappers and ORMs on top of these all pass through them). What is
 * counted is wall time with at least one query in flight, so that concurrent queries (Promise.all)
 * are not counted twice. A wrapped method returns exactly what the driver's does, and the modules
 * keep their properties. The cost per query is two performance.now() calls and one closure;
 * test/cli/reporter.test.ts measures it, test/engines/mysql/statement-timing.test.ts covers every driver.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { types } from 'node:util';
import { logger } from '../util/log.js';
import { isUntimed } from '../util/untimed.js';

const log = logger('reporter');

export interface QueryTiming {
  queries: number;
  /** Wall-clock ms during which at least one query was in flight. */
  busyMs: number;
}

interface State extends QueryTiming {
  inFlight: number;
  busySince: number;
}

const STATE = Symbol.for('fast-test-db.query-timing');

function state(): State {
  const g = globalThis as { [STATE]?: State };
  return (g[STATE] ??= { queries: 0, busyMs: 0, inFlight: 0, busySince: 0 });
}

/** Totals so far in this process; diff two snapshots for a span. */
export function timingSnapshot(): QueryTiming {
  const s = state();
  const open = s.inFlight > 0 ? performance.now() - s.busySince : 0;
  return { queries: s.queries, busyMs: s.busyMs + open };
}

export function timingSince(start: QueryTiming): QueryTiming {
  const now = timingSnapshot();
  return { queries: now.queries - start.queries, busyMs: now.busyMs - start.busyMs };
}

function begin(): () => void {
  const s = state();
  s.queries++;
  if (s.inFlight++ === 0) s.busySince = performance.now();
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    if (--s.inFlight === 0) s.busyMs += performance.now() - s.busySince;
  };
}

type AnyFn = (...args: any[]) => any;

/** Set on our wrappers, so that a driver set up again (another setup file, another copy of this module) is wrapped once. */
const TIMED = Symbol.for('fast-test-db.timed');

/**
 * Wraps a driver method so that it returns exactly what the driver returns. The query ends when
 * the driver first calls a function it was given (a callback, or the resolve/reject the promise
 * APIs pass down); with none, when the returned native promise settles, or when the returned
 * emitter says 'end' or 'close' (mysql2, mysql and mariadb emit 'end' after an error too). Nothing
 * else of the result is touched: mysql2's Query has a then() that throws, postgres.js's queries are
 * thenables that run when then() is called, and an 'error' listener would swallow an error the
 * driver reports as unhandled.
 */
function timed(original: AnyFn, connectionOf: (self: unknown, args: unknown[]) => unknown): AnyFn {
  const wrapper = function (this: unknown, ...args: any[]) {
    if (isUntimed(connectionOf(this, args))) return original.apply(this, args);
    const end = begin();
    let given = false;
    for (let i = 0; i < args.length; i++) {
      const fn = args[i];
      if (typeof fn !== 'function') continue;
      given = true;
      args[i] = function (this: unknown, ...cbArgs: any[]) {
        end();
        return fn.apply(this, cbArgs);
      };
    }
    let result: any;
    try {
      result = original.apply(this, args);
    } catch (e) {
      end();
      throw e;
    }
    if (given) return result;
    if (types.isPromise(result)) result.then(end, end);
    else if (result && typeof result.once === 'function') {
      result.once('end', end);
      result.once('close', end);
    } else end();
    return result;
  };
  Object.defineProperty(wrapper, 'name', { value: original.name });
  Object.defineProperty(wrapper, 'length', { value: original.length });
  Object.defineProperty(wrapper, TIMED, { value: true });
  return wrapper;
}

const onThis = (self: unknown) => self;

/** Wraps `target[method]` where it is defined (a class's prototype, or a static); false if there is no such method. */
function patch(target: any, method: string, connectionOf: (self: unknown, args: unknown[]) => unknown = onThis): boolean {
  let owner = target;
  while (owner && !Object.hasOwn(owner, method)) owner = Object.getPrototypeOf(owner);
  const original = owner?.[method];
  if (typeof original !== 'function') return false;
  if (original[TIMED]) return true;
  const desc = Object.getOwnPropertyDescriptor(owner, method)!;
  Object.defineProperty(owner, method, { ...desc, value: timed(original, connectionOf) });
  return true;
}

type Load = (id: string) => unknown;
const exported = (mod: any, name: string) => mod?.[name] ?? mod?.default?.[name];
/** Node's own require (outside any runner's sandbox); absolute paths only. */
const nodeRequire = (file: string) => createRequire(file)(file);

/** `pg`: Client#query (pools use it). */
export function instrumentPg(pg: any): boolean {
  return patch(exported(pg, 'Client')?.prototype, 'query');
}

/** `mysql2`: Connection#query and #execute; pools and `mysql2/promise` call them with a callback. */
function instrumentMysql2(load: Load): boolean {
  const proto = exported(load('mysql2'), 'Connection')?.prototype;
  const a = patch(proto, 'query');
  const b = patch(proto, 'execute');
  return a && b;
}

/** mysqljs `mysql`: Connection#query (pools' connections inherit it); the package exports no class, so it is read from its file. */
function instrumentMysql(load: Load): boolean {
  return patch((load('mysql/lib/Connection') as any)?.prototype, 'query');
}

/**
 * `mariadb`: the core connection's query, prepareExecute and batch, which the promise API, both
 * pools and the callback API's execute/batch call with resolve/reject; and the callback API's
 * query, which builds its command in a static of its own (its connection is the first argument).
 */
function instrumentMariadb(load: Load): boolean {
  const core = (load('mariadb/lib/connection') as any)?.prototype;
  const done = ['query', 'prepareExecute', 'batch'].map((m) => patch(core, m));
  done.push(patch(load('mariadb/lib/connection-callback'), '_QUERY_CMD', (_self, args) => args[0]));
  return done.every(Boolean);
}

/**
 * postgres.js: Query#handle, which every query (tagged, `unsafe`, a transaction's, a cursor's) runs
 * when it is first awaited or executed, before the query is queued on a connection. The query ends
 * when the driver calls its resolve or reject, which it reads from the query each time: a cursor
 * iterated with `for await` sets new ones per batch, so they are kept wrapped as they are set.
 */
export function instrumentPostgresQuery(Query: any): boolean {
  const proto = Query?.prototype;
  const original = proto?.handle;
  if (typeof original !== 'function') return false;
  if (original[TIMED]) return true;
  const wrapper = function (this: { executed?: boolean }, ...args: unknown[]) {
    if (!this.executed) timePostgresQuery(this);
    return original.apply(this, args);
  };
  Object.defineProperty(wrapper, 'name', { value: original.name });
  Object.defineProperty(wrapper, TIMED, { value: true });
  Object.defineProperty(proto, 'handle', { ...Object.getOwnPropertyDescriptor(proto, 'handle')!, value: wrapper });
  return true;
}

function timePostgresQuery(q: any): void {
  const end = begin();
  const ending = (fn: AnyFn) =>
    function (this: unknown, x: unknown) {
      end();
      return fn.call(this, x);
    };
  for (const key of ['resolve', 'reject']) {
    let fn = ending(q[key]);
    Object.defineProperty(q, key, {
      configurable: true,
      enumerable: true,
      get: () => fn,
      set: (next: AnyFn) => {
        fn = ending(next);
      },
    });
  }
}

/**
 * Where postgres.js keeps its Query class, beside the entry `require` resolves (its exports map
 * names no subpath): the CommonJS copy in cjs/src, the ES module copy in src. They are two classes.
 */
function postgresQueryFiles(entry: string): { cjs: string; esm: string } | undefined {
  const tail = join('cjs', 'src', 'index.js');
  if (!entry.endsWith(tail)) return undefined;
  const root = entry.slice(0, -tail.length);
  return { cjs: join(root, 'cjs', 'src', 'query.js'), esm: join(root, 'src', 'query.js') };
}

/**
 * Both copies: the CommonJS one through `load` (Jest's sandbox, or a require), and the ES module
 * one that a native `import 'postgres'` (Vitest) gets, through Node's require of an ES module, which
 * shares the one instance an import makes.
 */
function instrumentPostgres(load: Load, resolve: (id: string) => string): boolean {
  const files = postgresQueryFiles(resolve('postgres'));
  if (!files) return false;
  const cjs = instrumentPostgresQuery(exported(load(files.cjs), 'Query'));
  let esm = true;
  try {
    esm = instrumentPostgresQuery(exported(nodeRequire(files.esm), 'Query'));
  } catch (e) {
    log('postgres.js ES module not instrumented: %s', (e as Error).message);
  }
  return cjs && esm;
}

/** The drivers we time, by package name. */
const DRIVERS: ReadonlyArray<readonly [string, (load: Load, resolve: (id: string) => string) => boolean]> = [
  ['pg', (load) => instrumentPg(load('pg'))],
  ['postgres', instrumentPostgres],
  ['mysql2', instrumentMysql2],
  ['mysql', instrumentMysql],
  ['mariadb', instrumentMariadb],
];
const PRISMA_ADAPTERS = ['@prisma/adapter-pg', '@prisma/adapter-mariadb'];
/** Packages a project lists that bring a driver of their own along. */
const BRINGS: Record<string, string> = { '@prisma/adapter-pg': 'pg', '@prisma/adapter-mariadb': 'mariadb' };
/** Drivers wrapped whether listed or not: postgres.js's Query file loads nothing else (0.3 ms). */
const CHEAP = new Set(['postgres']);

export interface Instrumented {
  /** Installed drivers whose queries are counted. */
  timed: string[];
  /** Installed drivers whose queries are not: ones whose insides were not what we know. */
  unseen: string[];
  /** Installed drivers left alone because the project does not list them (see projectDrivers). */
  skipped: string[];
}

/**
 * The drivers a project lists in its package.json (any kind of dependency), and those its listed
 * packages bring; undefined without a readable package.json. Loading a driver costs 17-35 ms
 * (pg, mysql2, mysql, mariadb), paid in every worker process: with Vitest's forks, in every test file.
 */
export function projectDrivers(cwd = process.cwd()): Set<string> | undefined {
  let pkg: Record<string, Record<string, string> | undefined>;
  try {
    pkg = JSON.parse(readFileSync(join(cwd, 'package.json'), 'utf8'));
  } catch {
    return undefined;
  }
  const names = new Set<string>();
  for (const kind of ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies'])
    for (const name of Object.keys(pkg[kind] ?? {})) names.add(BRINGS[name] ?? name).add(name);
  return names;
}

/**
 * Instruments whichever supported drivers the project has installed and, when `only` is given,
 * lists (the others are `skipped`). `load` must be the require the test files use (Jest's sandbox
 * has its own module registry); by default the project's.
 */
export function instrumentDrivers(load?: Load, only?: Set<string>): Instrumented {
  const project = createRequire(join(process.cwd(), 'package.json'));
  const req = load ?? project;
  const resolve = (req as { resolve?: (id: string) => string }).resolve ?? project.resolve;
  const resolves = (name: string) => {
    try {
      resolve(name);
      return true;
    } catch {
      return false;
    }
  };
  const out: Instrumented = { timed: [], unseen: [], skipped: [] };
  for (const [name, fn] of DRIVERS) {
    if (!resolves(name)) continue;
    if (only && !only.has(name) && !CHEAP.has(name)) {
      out.skipped.push(name);
      continue;
    }
    try {
      (fn(req, resolve) ? out.timed : out.unseen).push(name);
    } catch (e) {
      log('%s not instrumented: %s', name, (e as Error).message);
      out.unseen.push(name);
    }
  }
  // Prisma's queries reach us only through a driver adapter (pg, mariadb); without one its own engine sends them.
  if (resolves('@prisma/client') && !PRISMA_ADAPTERS.some(resolves)) out.unseen.push('@prisma/client');
  return out;
}

/**
 * Of the drivers left alone, those loaded by now through Node's own require (a package the project
 * lists brought it, or the library's own connections): wraps them, at no loading cost. Called before
 * a file's first hook runs, after its imports. Jest's sandbox keeps its own registry, which this
 * cannot read.
 */
export function instrumentLoaded(skipped: string[]): string[] {
  const project = createRequire(join(process.cwd(), 'package.json'));
  return skipped.filter((name) => {
    try {
      if (!(project.resolve(name) in project.cache)) return false;
      return DRIVERS.find(([n]) => n === name)![1](project, project.resolve);
    } catch {
      return false;
    }
  });
}

/** Of the drivers left alone, those a test loaded after all through Node's own require: their queries were not counted. */
export function loadedAfterAll(skipped: string[]): string[] {
  if (skipped.length === 0) return [];
  const project = createRequire(join(process.cwd(), 'package.json'));
  return skipped.filter((name) => {
    try {
      return project.resolve(name) in project.cache;
    } catch {
      return false;
    }
  });
}
