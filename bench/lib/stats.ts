/** Samples and their summary: medians for the table, min/max for the spread the write-ups cared about. */

export interface Row {
  id: string;
  label: string;
  /** Every sample, in the unit of the section. */
  samples: number[];
  median: number;
  min: number;
  max: number;
  /** Baseline median / this median: how many times faster than the section's baseline (>1 is faster). */
  speedup?: number;
  /** Why this row has no samples (a tool that could not run the workload). */
  error?: string;
  note?: string;
  meta?: Record<string, unknown>;
}

export interface Section {
  id: string;
  title: string;
  unit: 'ms' | 'us';
  /** Row id every speedup is relative to. */
  baseline?: string;
  rows: Row[];
  notes: string[];
}

export function median(xs: number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export function row(id: string, label: string, samples: number[], extra: Partial<Row> = {}): Row {
  return {
    id,
    label,
    samples: samples.map((x) => Math.round(x * 1000) / 1000),
    median: median(samples),
    min: samples.length ? Math.min(...samples) : NaN,
    max: samples.length ? Math.max(...samples) : NaN,
    ...extra,
  };
}

/** Fills in each row's speedup against the section's baseline row. */
export function withSpeedups(section: Section): Section {
  const base = section.rows.find((r) => r.id === section.baseline);
  if (!base || !(base.median > 0)) return section;
  for (const r of section.rows) if (r.samples.length && r.median > 0) r.speedup = base.median / r.median;
  return section;
}

export async function timed<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const t = performance.now();
  const v = await fn();
  return [performance.now() - t, v];
}
