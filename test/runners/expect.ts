/** Assertions shared by the runner acceptance tests, on what the fixture tests recorded. */
import { availableParallelism } from 'node:os';
import { expect } from 'vitest';
import type { ProbeRecord } from '../fixtures/runners/probe.js';
import { byDatabase, urlDatabase, type RunResult } from './harness.js';

export function expectPassed(r: RunResult): void {
  if (r.code !== 0) throw new Error(`runner exited with ${r.code}:\n${r.output.slice(-6000)}`);
  expect(r.records).toHaveLength(8);
}

/** The app read the worker's URL from APP_DATABASE_URL, and reached that database. */
export function expectAppUrls(records: ProbeRecord[]): void {
  for (const r of records) expect(urlDatabase(r.envUrl)).toBe(r.database);
}

/** Per-worker isolation: one database per worker, named after it, rows carried from file to file. */
export function expectPerWorker(records: ProbeRecord[]): void {
  expectAppUrls(records);
  const workers = new Map<string, Set<string>>();
  for (const r of records) workers.set(String(r.worker), (workers.get(String(r.worker)) ?? new Set()).add(r.database));
  expect(workers.size).toBeGreaterThanOrEqual(2);
  const all = [...workers.values()].map((s) => [...s]);
  for (const [worker, dbs] of workers) {
    expect([...dbs]).toHaveLength(1);
    expect([...dbs][0]).toMatch(new RegExp(`_w${worker}$`));
  }
  expect(new Set(all.flat()).size).toBe(workers.size);
  for (const rows of byDatabase(records).values()) {
    // One worker runs its files one after another, so each test saw the rows of all before it.
    expect(rows.map((r) => r.before).sort((a, b) => a - b)).toEqual(rows.map((_, i) => i));
    for (const r of rows) expect(r.colors).toBe(2);
  }
}

/** Per-file isolation: every file started from the template. */
export function expectPerFile(records: ProbeRecord[]): void {
  expectAppUrls(records);
  for (const file of ['a', 'b', 'c', 'd']) {
    const rows = records.filter((r) => r.file === file);
    expect(rows.map((r) => [r.test, r.before])).toEqual([
      ['first', 0],
      ['second', 1],
    ]);
  }
}

/** Per-test isolation: every test started empty, the template's seed rows kept. */
export function expectPerTest(records: ProbeRecord[]): void {
  expectAppUrls(records);
  for (const r of records) {
    expect(r.before).toBe(0);
    expect(r.colors).toBe(2);
  }
}

/**
 * CPU pairing of the app's own connections (src/runners/shared/cpu-pairing.ts): from a file's second test on (its
 * first opened the app's pool), worker 1's thread and its session share one CPU, and a worker 2
 * that was paired has another.
 */
export function expectPaired(records: ProbeRecord[]): void {
  if (process.platform !== 'linux') return;
  const later = records.filter((r) => r.test === 'second');
  const one = later.filter((r) => r.worker === '1');
  expect(one.length).toBeGreaterThan(0);
  for (const r of one) {
    expect(r.threadCpus).toMatch(/^\d+$/);
    expect(r.sessionCpus).toBe(r.threadCpus);
  }
  for (const r of later.filter((x) => x.worker === '2' && /^\d+$/.test(x.threadCpus ?? ''))) {
    expect(r.sessionCpus).toBe(r.threadCpus);
    expect(r.threadCpus).not.toBe(one[0]!.threadCpus);
  }
}

/** A few queries per session: nothing was paired, the threads keep every CPU of the run. */
export function expectUnpaired(records: ProbeRecord[]): void {
  if (process.platform !== 'linux') return;
  for (const r of records) {
    expect(r.threadCpus).toBe(r.sessionCpus);
    if (availableParallelism() > 1) expect(r.threadCpus).not.toMatch(/^\d+$/);
  }
}
