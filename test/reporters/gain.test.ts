/**
 * The closing line's cases, from per-file figures: a failed run gets no estimate, a small database
 * share gets the plain sentence, unseen drivers make the share a lower bound and more workers than
 * CPUs an upper one.
 */
import { describe, expect, it } from 'vitest';
import { analyse, formatAnalysis } from '../../src/reporters/analysis.js';
import { databaseGain, formatGain } from '../../src/reporters/gain.js';

const project = { cwd: '/p', env: {}, resolved: {} } as never;
const file = (name: string, wallMs: number, dbMs: number, more: object = {}) => ({
  file: `/p/${name}.spec.ts`,
  pid: 1,
  endedAt: wallMs,
  wallMs,
  dbMs,
  queries: Math.round(dbMs * 10),
  ...more,
});

describe('the closing line', () => {
  it('a passing run whose database is half of it: the share, as the most a faster database can save', () => {
    const g = databaseGain([file('a', 1000, 500), file('b', 1000, 500)], 2500, { workers: 1, cpus: 2 })!;
    expect(g.share).toBe(0.5);
    expect(g.omitted).toBeUndefined();
    expect(formatGain(g)).toBe(
      'the database was 50% of this run (1.0 s waiting on 10000 queries in 2.0 s of test files): the most a faster database can save',
    );
  });

  it('a run with a failed file: no estimate, and says why', () => {
    const files = [file('a', 1000, 600), file('b', 1000, 600, { failed: true })];
    const a = analyse(files, project, { historyFile: false }, 2100);
    expect(a.database!.omitted).toBe('failed');
    const out = formatAnalysis(a, '/p');
    expect(out).toContain('what a faster database would save is left out because 1 test file(s) failed');
    expect(out).not.toContain('the most a faster database can save');
  });

  it('a small share: the plain sentence and no estimate', () => {
    const g = databaseGain([file('a', 1000, 30)], 1100)!;
    expect(g.omitted).toBe('small');
    expect(formatGain(g)).toMatch(/^the database was 3% of this run: fast-test-db cannot make it much faster \(/);
  });

  it('a driver it could not see: no 0%, it names the driver', () => {
    const none = databaseGain([file('a', 1000, 0)], 1100, { unseen: ['postgres'] })!;
    expect(formatGain(none)).toBe("queries through postgres.js could not be seen, so the database's share of this run is not known");
    const some = databaseGain([file('a', 1000, 400)], 1100, { unseen: ['@prisma/client'] })!;
    expect(formatGain(some)).toMatch(/^the database was at least 40% of this run .*Prisma's own query engine .* so this is a lower bound$/);
  });

  it('more workers than CPUs: the share is an upper bound', () => {
    const g = databaseGain([file('a', 1000, 600)], 1100, { workers: 4, cpus: 2 })!;
    expect(g.omitted).toBe('cpu-starved');
    expect(formatGain(g)).toMatch(/^the database was at most 60% of this run .*4 workers on 2 CPUs/);
  });

  it('counts workers as the most files running at once, not as processes (a fork per file)', () => {
    const seq = [0, 1, 2, 3].map((i) => file(`s${i}`, 1000, 600, { pid: 10 + i, startedAt: i * 1000, endedAt: (i + 1) * 1000 }));
    expect(analyse(seq, project, { historyFile: false }, 4100).database!.workers).toBe(1);
    const two = [0, 1, 2, 3].map((i) =>
      file(`p${i}`, 1000, 600, { pid: 10 + i, startedAt: (i >> 1) * 1000, endedAt: ((i >> 1) + 1) * 1000 }),
    );
    expect(analyse(two, project, { historyFile: false }, 2100).database!.workers).toBe(2);
  });

  it('without start times, counts workers by process and thread', () => {
    const files = [
      file('a', 1000, 600, { pid: 1, thread: 1 }),
      file('b', 1000, 600, { pid: 1, thread: 2 }),
      file('c', 1000, 600, { pid: 2, thread: 0 }),
      file('d', 1000, 600, { pid: 2, thread: 0 }),
    ];
    const a = analyse(files, project, { historyFile: false }, 1500);
    expect(a.database!.workers).toBe(3);
  });
});
