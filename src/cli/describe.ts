/** Short words for a server's tuning, shared by the commands that print one. */
import { MYSQL_TUNED_EXPECT, POSTGRES_TUNED_EXPECT } from '../engines/tuning.js';
import type { DescribeReport } from '../types.js';

export function describeTuning(report: DescribeReport): string {
  const names = Object.keys(report.engine === 'postgres' ? POSTGRES_TUNED_EXPECT : MYSQL_TUNED_EXPECT);
  const settings = names.map((k) => `${k}=${report.settings[k] ?? '?'}`).join(' ');
  return report.tuned ? `tuned (${settings})` : `NOT tuned (${settings})`;
}
