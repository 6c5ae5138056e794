/**
 * What the reporters conclude from per-file numbers: heap that keeps growing across the files one
 * worker runs (as a Jest worker's did in the TypeORM point-insert workload, examples/typeorm-jest), and
 * files far slower than their own history (InnoDB checkpoint stalls, as in the MariaDB class workload of
 * bench/mariadb-classes, show as variance). History is a small JSON file of recent wall times per file.
 */
import { mkdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join, relative } from 'node:path';
import type { Context } from '../options/context.js';
import { cacheRoot } from '../options/resolve.js';
import { readJson, writeJson } from '../server/os/shared-files.js';
import { databaseGain, driverName, formatGain, type DatabaseGain } from './gain.js';

export interface FileStats {
  file: string;
  /** Worker process that ran it (heap growth is judged per worker). */
  pid?: number;
  /** Its worker thread in that process, where the runner runs workers as threads. */
  thread?: number;
  /** ms since epoch, when the file started (from its record, or the runner's). */
  startedAt?: number;
  endedAt: number;
  wallMs: number;
  dbMs?: number;
  queries?: number;
  /** Installed drivers whose queries the setup file could not count. */
  unseen?: string[];
  heapUsed?: number;
  failed?: boolean;
}

export interface ReporterOptions {
  /** Where wall times of earlier runs are kept. Default file-times.json in the cache directory (node_modules/.cache/fast-test-db). */
  historyFile?: string | false;
  /** Runs of history kept per file. Default 20. */
  historySize?: number;
  /** Runs of history needed before a file can be an outlier. Default 5. */
  minHistory?: number;
  /** Heap growth (MB) across one worker's files that is flagged. Default 50. */
  heapGrowthMb?: number;
  /** Also write the report as JSON here. */
  outputFile?: string;
  /** Print nothing (the JSON file is still written). */
  silent?: boolean;
}

export interface Analysis {
  files: Array<FileStats & { flags: string[]; medianMs?: number }>;
  heapGrowth: Array<{ pid: number; files: number; fromMb: number; toMb: number }>;
  outliers: string[];
  overheadNote?: string;
  /** The database's share of the run and the run's estimated time on a default server (see gain.ts). */
  database?: DatabaseGain;
  /** Installed drivers whose queries are not in the figures (any file's record). */
  unseen?: string[];
}

type History = Record<string, number[]>;

/** The project a reporter reports on, as the reporter's entry resolved it (a Context fits). */
export type Project = Pick<Context, 'resolved' | 'cwd' | 'env'>;

/** In the cache directory (FAST_TEST_DB_CACHE_DIR, else node_modules/.cache/fast-test-db of the project), which CI caches for the warm copy. */
function defaultHistoryFile(project: Project): string {
  return join(cacheRoot(project), 'file-times.json');
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Slower than its own history by more than noise: median + max(3 robust sigmas, 50 %), and 200 ms at least. */
export function isOutlier(wallMs: number, history: number[], minHistory = 5): { outlier: boolean; medianMs?: number } {
  if (history.length < minHistory) return { outlier: false };
  const med = median(history);
  const mad = median(history.map((x) => Math.abs(x - med))) * 1.4826;
  const limit = med + Math.max(3 * mad, 0.5 * med, 200);
  return { outlier: wallMs > limit, medianMs: med };
}

/** Per worker, in the order its files ended: flagged when heap rose at 3 of 4 steps and by `minGrowthMb` overall. */
export function heapGrowth(files: FileStats[], minGrowthMb = 50): Analysis['heapGrowth'] {
  const byPid = new Map<number, FileStats[]>();
  for (const f of files) if (f.pid !== undefined && f.heapUsed !== undefined) byPid.set(f.pid, [...(byPid.get(f.pid) ?? []), f]);
  const out: Analysis['heapGrowth'] = [];
  for (const [pid, list] of byPid) {
    const seq = list.sort((a, b) => a.endedAt - b.endedAt).map((f) => f.heapUsed!);
    if (seq.length < 4) continue;
    let up = 0;
    for (let i = 1; i < seq.length; i++) if (seq[i]! > seq[i - 1]!) up++;
    const growth = (seq.at(-1)! - seq[0]!) / 1024 ** 2;
    if (up / (seq.length - 1) >= 0.75 && growth >= minGrowthMb)
      out.push({ pid, files: seq.length, fromMb: seq[0]! / 1024 ** 2, toMb: seq.at(-1)! / 1024 ** 2 });
  }
  return out;
}

/**
 * The most files that ran at one time: the workers competing for CPUs. Distinct processes would
 * overcount: Vitest's forks pool starts a process per file. Without start times, distinct workers.
 */
export function concurrency(files: FileStats[]): number {
  const timed = files.filter((f) => f.startedAt !== undefined && f.endedAt >= f.startedAt);
  if (timed.length === 0) return new Set(files.filter((f) => f.pid !== undefined).map((f) => `${f.pid}:${f.thread ?? 0}`)).size;
  // Ends sort before starts at the same instant: a file that starts as another ends does not overlap it.
  const events = timed.flatMap((f) => [[f.startedAt!, 1] as const, [f.endedAt, -1] as const]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let now = 0;
  let most = 0;
  for (const [, d] of events) most = Math.max(most, (now += d));
  return most;
}

/** `runMs`: the whole run's wall time as the reporter saw it; without it, the sum of the files' times. */
export function analyse(files: FileStats[], project: Project, opts: ReporterOptions = {}, runMs?: number): Analysis {
  const historyFile = opts.historyFile === false ? undefined : (opts.historyFile ?? defaultHistoryFile(project));
  const history = (historyFile && readJson<History>(historyFile)) || {};
  const growth = heapGrowth(files, opts.heapGrowthMb ?? 50);
  const growing = new Set(growth.map((g) => g.pid));
  // In a worker whose heap keeps growing, name the files that added to it.
  const added = new Map<FileStats, number>();
  for (const pid of growing) {
    const seq = files.filter((f) => f.pid === pid && f.heapUsed !== undefined).sort((a, b) => a.endedAt - b.endedAt);
    for (let i = 1; i < seq.length; i++) added.set(seq[i]!, seq[i]!.heapUsed! - seq[i - 1]!.heapUsed!);
  }
  const outliers: string[] = [];
  const result = files.map((f) => {
    const key = relative(project.cwd, f.file);
    const { outlier, medianMs } = isOutlier(f.wallMs, history[key] ?? [], opts.minHistory ?? 5);
    const flags: string[] = [];
    if (outlier) {
      flags.push(`slow: ${(f.wallMs / Math.max(medianMs!, 1)).toFixed(1)}x its median ${Math.round(medianMs!)} ms`);
      outliers.push(f.file);
    }
    const grew = added.get(f) ?? 0;
    if (grew >= 5 * 1024 ** 2) flags.push(`heap +${Math.round(grew / 1024 ** 2)} MB`);
    return { ...f, flags, medianMs };
  });
  if (historyFile) {
    // Failed files say little about normal timing; keep them out of the history.
    for (const f of files)
      if (!f.failed)
        history[relative(project.cwd, f.file)] = [...(history[relative(project.cwd, f.file)] ?? []), Math.round(f.wallMs)].slice(
          -(opts.historySize ?? 20),
        );
    try {
      mkdirSync(dirname(historyFile), { recursive: true });
      writeJson(historyFile, history);
    } catch {
      /* a read-only checkout just has no history */
    }
  }
  const unseen = [...new Set(files.flatMap((f) => f.unseen ?? []))].sort();
  const database = databaseGain(files, runMs ?? files.reduce((s, f) => s + f.wallMs, 0), {
    failedFiles: files.filter((f) => f.failed).length,
    unseen,
    workers: concurrency(files),
    cpus: availableParallelism(),
  });
  return { files: result, heapGrowth: growth, outliers, ...(database ? { database } : {}), ...(unseen.length ? { unseen } : {}) };
}

const mb = (b?: number) => (b === undefined ? '-' : `${(b / 1024 ** 2).toFixed(0)} MB`);
const ms = (x?: number) => (x === undefined ? '-' : x >= 10_000 ? `${(x / 1000).toFixed(1)} s` : `${Math.round(x)} ms`);

/** The table printed at the end of a run, slowest files first. */
export function formatAnalysis(
  a: Analysis,
  root: string,
  paint: { yellow(s: string): string; bold(s: string): string; dim(s: string): string } = {
    yellow: (s) => s,
    bold: (s) => s,
    dim: (s) => s,
  },
): string {
  const rows = [...a.files].sort((x, y) => y.wallMs - x.wallMs);
  const names = rows.map((f) => relative(root, f.file) || f.file);
  const w = Math.max(4, ...names.map((n) => n.length));
  const lines = [
    paint.bold(`fast-test-db: time and heap per test file`),
    paint.dim(
      `${'file'.padEnd(w)}  ${'wall'.padStart(8)}  ${'db wait'.padStart(8)}  ${'db %'.padStart(5)}  ${'queries'.padStart(7)}  ${'heap after'.padStart(10)}`,
    ),
  ];
  rows.forEach((f, i) => {
    const pct = f.dbMs !== undefined && f.wallMs > 0 ? `${Math.round((100 * f.dbMs) / f.wallMs)}%` : '-';
    const line = `${names[i]!.padEnd(w)}  ${ms(f.wallMs).padStart(8)}  ${ms(f.dbMs).padStart(8)}  ${pct.padStart(5)}  ${String(f.queries ?? '-').padStart(7)}  ${mb(f.heapUsed).padStart(10)}`;
    lines.push(f.flags.length ? paint.yellow(`${line}  ! ${f.flags.join('; ')}`) : line);
  });
  const total = rows.reduce((s, f) => s + f.wallMs, 0);
  const db = rows.reduce((s, f) => s + (f.dbMs ?? 0), 0);
  lines.push(paint.dim(`${rows.length} file(s), ${ms(total)} in files, ${ms(db)} waiting on the database`));
  for (const g of a.heapGrowth)
    lines.push(
      paint.yellow(
        `! heap kept growing in worker ${g.pid}: ${g.fromMb.toFixed(0)} MB -> ${g.toMb.toFixed(0)} MB over ${g.files} files. Something holds on to memory between files (on Jest with Node >= 16.11, try --workerIdleMemoryLimit or a newer Node; close pools and data sources in afterAll).`,
      ),
    );
  if (a.outliers.length)
    lines.push(
      paint.yellow(
        `! ${a.outliers.length} file(s) far slower than their own history: look for stalls (fast-test-db monitor) or a slower machine.`,
      ),
    );
  // The database line says what it could not see; without one, this line does.
  if (a.unseen && !a.database)
    lines.push(
      paint.yellow(`! queries through ${a.unseen.map(driverName).join(', ')} are not counted: the database figures leave them out.`),
    );
  if (a.database) lines.push(paint.bold(`fast-test-db: ${formatGain(a.database)}`));
  return lines.join('\n');
}
