/**
 * Vitest reporter: per test file, wall time, time waiting on the database, heap after the file;
 * flags heap that keeps growing in a worker and files far slower than their own history.
 *
 *   test: {
 *     reporters: ['default', new FastTestDbVitestReporter({ historyFile: '.cache/ftdb-times.json' })],
 *     setupFiles: ['fast-test-db/reporters/vitest-setup'],
 *   }
 */
import type { FileStats, ReporterOptions } from './analysis.js';
import { buildContext } from '../options/context.js';
import { finish } from './print.js';
import { closeReportDir, openReportDir, readRecord } from './records.js';

/** The little of Vitest's TestModule we read. */
interface TestModuleLike {
  moduleId: string;
  state(): string;
  diagnostic(): {
    environmentSetupDuration: number;
    prepareDuration: number;
    collectDuration: number;
    setupDuration: number;
    duration: number;
    heap?: number;
  };
}

export default class FastTestDbVitestReporter {
  private readonly dir: string;
  private root = process.cwd();
  private readonly files: FileStats[] = [];
  // The run's start as near as a reporter sees it: made with the config, reset when a run starts.
  private startedAt = performance.now();

  constructor(private readonly options: ReporterOptions = {}) {
    this.dir = openReportDir();
  }

  onInit(vitest: { config: { root: string } }): void {
    this.root = vitest.config.root;
  }

  onTestRunStart(): void {
    this.startedAt = performance.now();
  }

  onTestModuleEnd(module: TestModuleLike): void {
    const d = module.diagnostic();
    const rec = readRecord(this.dir, module.moduleId);
    this.files.push({
      file: module.moduleId,
      pid: rec?.pid,
      thread: rec?.thread,
      startedAt: rec?.startedAt,
      endedAt: rec?.endedAt ?? Date.now(),
      wallMs: d.environmentSetupDuration + d.prepareDuration + d.collectDuration + d.setupDuration + d.duration,
      dbMs: rec?.dbMs,
      queries: rec?.queries,
      unseen: rec?.unseen,
      heapUsed: d.heap ?? rec?.heapUsed,
      failed: module.state() === 'failed',
    });
  }

  onTestRunEnd(): void {
    // The reporter is an entry: it resolves the project's options once, from its root.
    finish(this.files, buildContext({}, { cwd: this.root, check: false }), this.options, performance.now() - this.startedAt);
    closeReportDir(this.dir);
  }
}
