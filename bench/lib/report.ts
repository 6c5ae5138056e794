/** The three outputs of a run: a terminal table, a JSON file with every sample, and an SVG bar chart. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { MachineInfo } from './machine.js';
import type { Row, Section } from './stats.js';

export interface BenchResult {
  name: string;
  date: string;
  quick: boolean;
  scale: { rowsPerFile: number; repeats: number };
  commit?: string;
  machine: MachineInfo;
  durationMs: number;
  sections: Section[];
}

function fmt(x: number, unit: Section['unit']): string {
  if (!Number.isFinite(x)) return '-';
  if (unit === 'us') return `${x < 10 ? x.toFixed(1) : Math.round(x)} us`;
  if (x >= 10_000) return `${(x / 1000).toFixed(1)} s`;
  if (x >= 1000) return `${(x / 1000).toFixed(2)} s`;
  return `${x < 10 ? x.toFixed(1) : Math.round(x)} ms`;
}

export function fmtSpeedup(r: Row): string {
  if (r.error) return 'failed';
  if (r.speedup === undefined) return '';
  if (r.speedup < 0.95) return `${(1 / r.speedup).toFixed(1)}x slower`;
  return r.speedup >= 10 ? `${r.speedup.toFixed(0)}x` : `${r.speedup.toFixed(1)}x`;
}

/** Markdown table: speedup first (absolute times move with the machine's load), then median, min, max. */
export function sectionTable(s: Section): string {
  const head = s.baseline ? '| setup | vs baseline | median | min | max | n |' : '| measure | median | min | max | n |';
  const sep = s.baseline ? '|---|---:|---:|---:|---:|---:|' : '|---|---:|---:|---:|---:|';
  const lines = [`### ${s.title}`, '', head, sep];
  for (const r of s.rows) {
    const label = r.label + (r.note ? ` (${r.note})` : '');
    if (r.error) {
      lines.push(s.baseline ? `| ${label} | failed | ${r.error.replace(/\|/g, '/').replace(/\n/g, ' ').slice(0, 120)} | | | 0 |` : `| ${label} | failed: ${r.error.slice(0, 120)} | | | 0 |`);
      continue;
    }
    const cells = [fmt(r.median, s.unit), fmt(r.min, s.unit), fmt(r.max, s.unit), String(r.samples.length)];
    lines.push(s.baseline ? `| ${label} | ${fmtSpeedup(r)} | ${cells.join(' | ')} |` : `| ${label} | ${cells.join(' | ')} |`);
  }
  for (const n of s.notes) lines.push('', `- ${n}`);
  return lines.join('\n');
}

export function machineLine(m: MachineInfo): string {
  const v = m.versions;
  return `${m.cpu}, ${m.cores} cores, ${m.memoryGb} GB, ${m.os}, Node ${m.node}; PostgreSQL ${v.postgres ?? '?'}, MariaDB ${v.mariadb ?? '?'}; load average ${m.loadavg.start.join(' ')} at the start${m.loadavg.end ? `, ${m.loadavg.end.join(' ')} at the end` : ''}`;
}

export function fullTable(r: BenchResult): string {
  return [
    `Measured ${r.date} on: ${machineLine(r.machine)}.`,
    `Scale: ${r.scale.rowsPerFile} rows per 10,000 of the write-up's workload, ${r.scale.repeats} repeat(s) of each whole run${r.quick ? ' (quick run: a smoke test of the harness, not figures to quote)' : ''}.`,
    '',
    ...r.sections.map(sectionTable).flatMap((t) => [t, '']),
  ].join('\n');
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Horizontal bars of each row's median, one panel per section, the speedup printed at the bar's end. */
export function svgChart(r: BenchResult): string {
  const width = 900;
  const labelW = 330;
  const barMax = width - labelW - 150;
  const rowH = 22;
  let y = 40;
  const parts: string[] = [];
  parts.push(`<text x="12" y="24" font-size="15" font-weight="bold">fast-test-db benchmarks, ${esc(r.date.slice(0, 10))}${r.quick ? ' (quick)' : ''}</text>`);
  for (const s of r.sections) {
    y += 14;
    parts.push(`<text x="12" y="${y}" font-size="13" font-weight="bold">${esc(s.title)}</text>`);
    y += 8;
    const max = Math.max(...s.rows.filter((x) => !x.error).map((x) => x.max), 0);
    for (const row of s.rows) {
      const cy = y + rowH / 2;
      parts.push(`<text x="${labelW - 8}" y="${cy + 4}" font-size="12" text-anchor="end">${esc(row.label.slice(0, 48))}</text>`);
      if (row.error || !(max > 0)) {
        parts.push(`<text x="${labelW}" y="${cy + 4}" font-size="12" fill="#b00">${esc(row.error ? 'failed: ' + row.error.split('\n')[0]!.slice(0, 70) : 'no data')}</text>`);
      } else {
        const w = Math.max(1, (row.median / max) * barMax);
        const fill = row.id === s.baseline ? '#999' : '#2a7ab8';
        parts.push(`<rect x="${labelW}" y="${y + 3}" width="${w.toFixed(1)}" height="${rowH - 6}" fill="${fill}"/>`);
        // The spread over repeats, as a whisker from min to max.
        const x1 = labelW + (row.min / max) * barMax;
        const x2 = labelW + (row.max / max) * barMax;
        parts.push(`<line x1="${x1.toFixed(1)}" x2="${x2.toFixed(1)}" y1="${cy}" y2="${cy}" stroke="#222" stroke-width="1"/>`);
        const unit = s.unit === 'us' ? ' us' : row.median >= 1000 ? ' s' : ' ms';
        const shown = s.unit === 'us' ? row.median.toFixed(0) : row.median >= 1000 ? (row.median / 1000).toFixed(2) : row.median.toFixed(1);
        const sp = fmtSpeedup(row);
        parts.push(`<text x="${labelW + w + 6}" y="${cy + 4}" font-size="11">${esc(shown + unit + (sp ? '  ' + sp : ''))}</text>`);
      }
      y += rowH;
    }
    y += 8;
  }
  y += 10;
  parts.push(`<text x="12" y="${y}" font-size="10" fill="#555">${esc(machineLine(r.machine).slice(0, 160))}</text>`);
  y += 10;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${y}" viewBox="0 0 ${width} ${y}" font-family="sans-serif">\n<rect width="100%" height="100%" fill="#fff"/>\n${parts.join('\n')}\n</svg>\n`;
}

export function writeResult(r: BenchResult, dir: string): { json: string; svg: string } {
  mkdirSync(dir, { recursive: true });
  const base = `${r.date.slice(0, 10)}-${r.name}`;
  const json = join(dir, `${base}.json`);
  const svg = join(dir, `${base}.svg`);
  writeFileSync(json, JSON.stringify(r, null, 2) + '\n');
  writeFileSync(svg, svgChart(r));
  return { json, svg };
}
