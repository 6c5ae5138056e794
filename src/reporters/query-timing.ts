/**
 * Time spent waiting on the database, measured cheaply at the driver's query entry point: pg's
 * Client#query and mysql2's Connection#query/#execute (pools and ORMs on top of these all pass
 * through them). What is counted is wall time with at least one query in flight, so that
 * concurrent queries (Promise.all) are not counted twice. The cost per query is two
 * performance.now() calls and one closure; test/cli/reporter.test.ts measures it.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { logger } from '../log.js';

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
const PATCHED = Symbol.for('fast-test-db.query-timing.patched');

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

/** Wraps a driver method that takes an optional trailing callback and returns a promise or an emitter. */
function timed(original: AnyFn): AnyFn {
  return function (this: unknown, ...args: any[]) {
    const end = begin();
    const last = args.length - 1;
    if (last >= 0 && typeof args[last] === 'function') {
      const cb = args[last] as AnyFn;
      args[last] = function (this: unknown, ...cbArgs: any[]) {
        end();
        return cb.apply(this, cbArgs);
      };
    }
    let result: any;
    try {
      result = original.apply(this, args);
    } catch (e) {
      end();
      throw e;
    }
    if (result && typeof result.then === 'function') result.then(end, end);
    else if (result && typeof result.once === 'function') {
      // A streaming query (pg submittable, mysql2 Query without callback) ends with an event.
      result.once('end', end);
      result.once('error', end);
    } else if (typeof args[last] !== 'function') end();
    return result;
  };
}

function patch(proto: any, method: string): boolean {
  if (!proto || typeof proto[method] !== 'function') return false;
  const marks: Set<string> = (proto[PATCHED] ??= new Set<string>());
  if (marks.has(method)) return true;
  proto[method] = timed(proto[method]);
  marks.add(method);
  return true;
}

/** Instruments a loaded `pg` module (its Client; pools use it). */
export function instrumentPg(pg: any): boolean {
  const Client = pg?.Client ?? pg?.default?.Client;
  return patch(Client?.prototype, 'query');
}

/** Instruments a loaded `mysql2` module (Connection#query and #execute; pools and the promise API use them). */
export function instrumentMysql2(mysql2: any): boolean {
  const Connection = mysql2?.Connection ?? mysql2?.default?.Connection;
  const proto = Connection?.prototype;
  const a = patch(proto, 'query');
  const b = patch(proto, 'execute');
  return a || b;
}

/**
 * Instruments whichever of pg and mysql2 the project has installed. `load` must be the require
 * the test files use (Jest's sandbox has its own module registry); by default the project's.
 * Returns the drivers instrumented.
 */
export function instrumentDrivers(load: (id: string) => unknown = createRequire(join(process.cwd(), 'package.json'))): string[] {
  const req = load;
  const done: string[] = [];
  for (const [name, fn] of [
    ['pg', instrumentPg],
    ['mysql2', instrumentMysql2],
  ] as const) {
    try {
      if (fn(req(name))) done.push(name);
    } catch (e) {
      log('%s not instrumented: %s', name, (e as Error).message);
    }
  }
  return done;
}
