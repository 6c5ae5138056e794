/**
 * How a test file's numbers travel from the worker that ran it to the reporter in the main
 * process: the reporter picks a directory and puts it in FAST_TEST_DB_REPORT_DIR before workers
 * start; the setup file writes one small JSON file per test file there.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';
import { instrumentDrivers, instrumentLoaded, loadedAfterAll, projectDrivers, timingSince, timingSnapshot } from './query-timing.js';

export const REPORT_DIR_ENV = 'FAST_TEST_DB_REPORT_DIR';

export interface FileRecord {
  file: string;
  pid: number;
  /** The worker thread in that process (Vitest's threads pool runs several workers in one process). */
  thread?: number;
  /** ms since epoch, when the setup file started this file and when its last afterAll ran. */
  startedAt: number;
  endedAt: number;
  queries: number;
  dbMs: number;
  heapUsed: number;
  /** Whether global.gc ran before heapUsed was read (node --expose-gc). */
  gc: boolean;
  /** Installed drivers whose queries are not in queries/dbMs. */
  unseen?: string[];
}

/** Called by a reporter's constructor, in the main process, before any worker is spawned. */
export function openReportDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'fast-test-db-report-'));
  // The env is the one channel into the worker processes the runner spawns after this (Jest's and
  // Vitest's workers inherit it), whose setup file reads it; so does this process when the runner runs files in it.
  process.env[REPORT_DIR_ENV] = dir;
  return dir;
}

export function closeReportDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** A file's path as a short name (FNV-1a, 32 bits, twice): node:crypto would cost every worker process its load. */
function key(file: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (let i = 0; i < file.length; i++) {
    const c = file.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193) >>> 0;
    b = Math.imul(b ^ c, 0x811c9dc5) >>> 0;
  }
  return a.toString(16).padStart(8, '0') + b.toString(16).padStart(8, '0');
}

export function writeRecord(rec: FileRecord, dir = process.env[REPORT_DIR_ENV]): void {
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${key(rec.file)}-${rec.pid}.json`), JSON.stringify(rec));
}

/** The latest record written for `file` (a retried file writes again). */
export function readRecord(dir: string, file: string): FileRecord | undefined {
  if (!existsSync(dir)) return undefined;
  const k = key(file);
  const recs = readdirSync(dir)
    .filter((n) => n.startsWith(k + '-'))
    .map((n) => {
      try {
        return JSON.parse(readFileSync(join(dir, n), 'utf8')) as FileRecord;
      } catch {
        return undefined;
      }
    })
    .filter((r): r is FileRecord => r !== undefined)
    .sort((a, b) => b.endedAt - a.endedAt);
  return recs[0];
}

/**
 * What both runners' setup files do when the reporter is on: instrument the drivers, and after the
 * file write its wall time, database time and heap. `load` is the runner's own module loader
 * (Jest gives every test file its own registry).
 */
export function recordThisFile(
  afterAll: (fn: () => void) => void,
  testPath: () => string | undefined,
  load?: (id: string) => unknown,
  beforeAll?: (fn: () => void) => void,
): void {
  if (!process.env[REPORT_DIR_ENV]) return;
  // Only the drivers the project lists: loading the others would cost more than all the timing.
  const { unseen: notTimed, skipped: left } = instrumentDrivers(load, projectDrivers());
  let skipped = left;
  // Registered before the file's own hooks, so it runs after the file's imports and before its first query in a hook.
  beforeAll?.(() => {
    const late = new Set(instrumentLoaded(skipped));
    skipped = skipped.filter((n) => !late.has(n));
  });
  const startedAt = Date.now();
  const start = timingSnapshot();
  afterAll(() => {
    const t = timingSince(start);
    const file = testPath();
    const unseen = [...notTimed, ...loadedAfterAll(skipped)];
    const gc = typeof globalThis.gc === 'function';
    if (gc) globalThis.gc!();
    if (file)
      writeRecord({
        file,
        pid: process.pid,
        thread: threadId,
        startedAt,
        endedAt: Date.now(),
        queries: t.queries,
        dbMs: t.busyMs,
        heapUsed: process.memoryUsage().heapUsed,
        gc,
        ...(unseen.length ? { unseen } : {}),
      });
  });
}
