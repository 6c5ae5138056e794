/**
 * Jest reporter: per test file, wall time, time waiting on the database, heap after the file; flags
 * heap that keeps growing in a worker and files far slower than their own history.
 *
 *   reporters: ['default', ['fast-test-db/reporters/jest', { historyFile: '.cache/ftdb-times.json' }]],
 *   setupFilesAfterEnv: ['fast-test-db/reporters/jest-setup'],
 */
import type { FileStats, ReporterOptions } from './analysis.js';
import { buildContext } from '../options/context.js';
import { finish } from './print.js';
import { closeReportDir, openReportDir, readRecord } from './records.js';

interface JestTestResult {
  testFilePath: string;
  numFailingTests: number;
  testExecError?: unknown;
  memoryUsage?: number;
  perfStats: { start: number; end: number; runtime?: number };
}

export default class FastTestDbJestReporter {
  private readonly dir: string;
  private readonly root: string;
  private readonly files: FileStats[] = [];
  // The run's start as near as a reporter sees it: it is made before any worker starts.
  private readonly startedAt = performance.now();

  constructor(
    globalConfig: { rootDir?: string },
    private readonly options: ReporterOptions = {},
  ) {
    this.dir = openReportDir();
    this.root = globalConfig?.rootDir ?? process.cwd();
  }

  onTestResult(_test: unknown, result: JestTestResult): void {
    const rec = readRecord(this.dir, result.testFilePath);
    const wall = result.perfStats.end - result.perfStats.start;
    this.files.push({
      file: result.testFilePath,
      pid: rec?.pid,
      thread: rec?.thread,
      startedAt: result.perfStats.start || rec?.startedAt,
      endedAt: result.perfStats.end || rec?.endedAt || Date.now(),
      wallMs: wall > 0 ? wall : rec ? rec.endedAt - rec.startedAt : 0,
      dbMs: rec?.dbMs,
      queries: rec?.queries,
      unseen: rec?.unseen,
      heapUsed: result.memoryUsage ?? rec?.heapUsed,
      failed: result.numFailingTests > 0 || Boolean(result.testExecError),
    });
  }

  onRunComplete(): void {
    // The reporter is an entry: it resolves the project's options once, from its root.
    finish(this.files, buildContext({}, { cwd: this.root, check: false }), this.options, performance.now() - this.startedAt);
    closeReportDir(this.dir);
  }

  getLastError(): Error | undefined {
    return undefined;
  }
}
