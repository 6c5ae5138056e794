/** Where reporters write: stderr like the runners' own summaries, colours only on a terminal. */
import { writeFileSync } from 'node:fs';
import { analyse, formatAnalysis, type FileStats, type Project, type ReporterOptions } from './analysis.js';

/** `runMs`: the run's wall time from the reporter's start, for the database line's estimate. */
export function finish(
  files: FileStats[],
  project: Project,
  opts: ReporterOptions,
  runMs?: number,
  write: (text: string) => void = (t) => process.stderr.write(t),
): void {
  if (files.length === 0) return;
  const analysis = analyse(files, project, opts, runMs);
  if (opts.outputFile) writeFileSync(opts.outputFile, JSON.stringify(analysis, null, 2));
  if (opts.silent) return;
  const tty = Boolean(process.stderr.isTTY) && !project.env.NO_COLOR;
  const sgr = (a: number, b: number) => (s: string) => (tty ? `\x1b[${a}m${s}\x1b[${b}m` : s);
  write('\n' + formatAnalysis(analysis, project.cwd, { yellow: sgr(33, 39), bold: sgr(1, 22), dim: sgr(2, 22) }) + '\n');
}
