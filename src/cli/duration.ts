/** Durations as the CLI's options write them (`--older-than 7d`, `--interval 500ms`) and as it prints them. */
import { FastTestDbError } from '../errors.js';

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** Milliseconds of a duration such as `90s`, `30m`, `2h`, `7d`, `1h30m` or a bare number of seconds. */
export function parseDuration(text: string): number {
  const t = text.trim().toLowerCase();
  if (/^\d+(\.\d+)?$/.test(t)) return Number(t) * 1000;
  const parts = [...t.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d|w)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== t)
    throw new FastTestDbError(
      'BAD_OPTION',
      `"${text}" is not a duration`,
      'write it like 90s, 30m, 2h, 7d or 1h30m (a bare number is seconds)',
    );
  return parts.reduce((ms, p) => ms + Number(p[1]) * UNITS[p[2]!]!, 0);
}

export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return 'unknown';
  const s = Math.round(ms / 1000);
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.round(s / 60)}m`;
  if (s < 172_800) return `${(s / 3600).toFixed(1)}h`;
  return `${(s / 86_400).toFixed(1)}d`;
}
