/** Sizes as the CLI prints them (free space, what a leftover holds). */
const KB = 1024;
const MB = 1024 ** 2;
const GB = 1024 ** 3;

export function formatBytes(n: number): string {
  if (n >= GB) return `${(n / GB).toFixed(1)} GB`;
  if (n >= MB) return `${Math.round(n / MB)} MB`;
  return `${Math.round(n / KB)} KB`;
}
