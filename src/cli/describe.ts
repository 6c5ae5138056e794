/** Short words for a server's tuning, shared by the commands that print one. */
import { engineFor } from '../engines/index.js';
import type { DescribeReport } from '../types.js';

export function describeTuning(report: DescribeReport): string {
  const names = Object.keys(engineFor(report.engine).tuning.expected);
  const settings = names.map((k) => `${k}=${report.settings[k] ?? '?'}`).join(' ');
  return report.tuned ? `tuned (${settings})` : `NOT tuned (${settings})`;
}
