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
      lines.push(
        s.baseline
          ? `| ${label} | failed | ${r.error.replace(/\|/g, '/').replace(/\n/g, ' ').slice(0, 120)} | | | 0 |`
          : `| ${label} | failed: ${r.error.slice(0, 120)} | | | 0 |`,
      );
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
  // Name only the servers this run measured: a run without MariaDB steps has no MariaDB version.
  const servers = [v.postgres && `PostgreSQL ${v.postgres}`, v.mariadb && `MariaDB ${v.mariadb}`].filter(Boolean).join(', ');
  const load = `load average ${m.loadavg.start.join(' ')} at the start${m.loadavg.end ? `, ${m.loadavg.end.join(' ')} at the end` : ''}`;
  return `${m.cpu}, ${m.cores} cores, ${m.memoryGb} GB, ${m.os}, Node ${m.node}${servers ? `; ${servers}` : ''}; ${load}`;
}

export function fullTable(r: BenchResult): string {
  return [
    `Measured ${r.date} on: ${machineLine(r.machine)}.`,
    `Scale: ${r.scale.rowsPerFile} rows per 10,000 of the TypeORM workload, ${r.scale.repeats} repeat(s) of each whole run${r.quick ? ' (quick run: a smoke test of the harness, not figures to quote)' : ''}.`,
    '',
    ...r.sections.map(sectionTable).flatMap((t) => [t, '']),
  ].join('\n');
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * Width of `text` in pixels at `size`, from per-character advances of a typical sans-serif (DejaVu
 * Sans, what most renderers fall back to; it is wider than Arial or Helvetica, so others fit too).
 * The chart lays itself out from these, so that no label is cut or overlaps a bar.
 */
export function textWidth(text: string, size: number): number {
  let em = 0;
  for (const ch of text) {
    if (/[il.,:;'|!()[\] ]/.test(ch)) em += 0.32;
    else if (/[fjrt-]/.test(ch)) em += 0.42;
    else if (/[mwMW@%]/.test(ch)) em += 0.95;
    else if (/[A-Z]/.test(ch)) em += 0.72;
    else em += 0.62;
  }
  return em * size;
}

/** Splits `text` at spaces into lines no wider than `width` at `size`. */
function wrap(text: string, size: number, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    const next = line ? `${line} ${word}` : word;
    if (line && textWidth(next, size) > width) {
      lines.push(line);
      line = word;
    } else line = next;
  }
  if (line) lines.push(line);
  return lines;
}

function valueLabel(row: Row, unit: Section['unit']): string {
  const sp = fmtSpeedup(row);
  return fmt(row.median, unit) + (sp ? ` · ${sp}` : '');
}

/**
 * Horizontal bars of each row's median, one panel per section: the label column is as wide as the
 * longest label, the min–max whisker is drawn inside the bar's row, and the value sits to the right
 * of whichever ends later, bar or whisker, with room reserved for the widest value.
 */
export function svgChart(r: BenchResult): string {
  const width = 960;
  const margin = 12;
  const rowH = 22;
  const labelSize = 12;
  const valueSize = 11;
  const labelOf = (row: Row) => row.label + (row.note ? ` (${row.note})` : '');
  const allRows = r.sections.flatMap((s) => s.rows.map((row) => ({ row, s })));
  const labelW = Math.ceil(Math.max(0, ...allRows.map(({ row }) => textWidth(labelOf(row), labelSize)))) + margin + 8;
  const valueW =
    Math.ceil(Math.max(0, ...allRows.filter(({ row }) => !row.error).map(({ row, s }) => textWidth(valueLabel(row, s.unit), valueSize)))) +
    8;
  const barX = labelW;
  const barMax = Math.max(120, width - barX - valueW - margin);
  let y = 40;
  const parts: string[] = [];
  parts.push(
    `<text x="${margin}" y="24" font-size="15" font-weight="bold">fast-test-db benchmarks, ${esc(r.date.slice(0, 10))}${r.quick ? ' (quick)' : ''}</text>`,
  );
  for (const s of r.sections) {
    y += 14;
    for (const line of wrap(s.title, 13, width - 2 * margin)) {
      parts.push(`<text x="${margin}" y="${y}" font-size="13" font-weight="bold">${esc(line)}</text>`);
      y += 16;
    }
    y -= 8;
    const max = Math.max(...s.rows.filter((x) => !x.error).map((x) => x.max), 0);
    for (const row of s.rows) {
      const cy = y + rowH / 2;
      parts.push(`<text x="${barX - 8}" y="${cy + 4}" font-size="${labelSize}" text-anchor="end">${esc(labelOf(row))}</text>`);
      if (row.error || !(max > 0)) {
        const why = row.error ? 'failed: ' + row.error.split('\n')[0]! : 'no data';
        parts.push(
          `<text x="${barX}" y="${cy + 4}" font-size="${valueSize}" fill="#b00">${esc(wrap(why, valueSize, width - barX - margin)[0]!)}</text>`,
        );
      } else {
        const w = Math.max(1, (row.median / max) * barMax);
        const fill = row.id === s.baseline ? '#999' : '#2a7ab8';
        parts.push(`<rect x="${barX}" y="${y + 4}" width="${w.toFixed(1)}" height="${rowH - 8}" fill="${fill}"/>`);
        // The spread over repeats: a whisker from min to max with end ticks, inside this row only.
        const x1 = barX + (row.min / max) * barMax;
        const x2 = barX + (row.max / max) * barMax;
        if (row.samples.length > 1 && x2 - x1 >= 1) {
          parts.push(
            `<path d="M${x1.toFixed(1)} ${cy}H${x2.toFixed(1)}M${x1.toFixed(1)} ${cy - 4}v8M${x2.toFixed(1)} ${cy - 4}v8" stroke="#222" stroke-width="1" fill="none"/>`,
          );
        }
        const valueX = Math.max(barX + w, x2) + 6;
        parts.push(`<text x="${valueX.toFixed(1)}" y="${cy + 4}" font-size="${valueSize}">${esc(valueLabel(row, s.unit))}</text>`);
      }
      y += rowH;
    }
    y += 8;
  }
  y += 6;
  for (const line of wrap(machineLine(r.machine), 10, width - 2 * margin)) {
    y += 13;
    parts.push(`<text x="${margin}" y="${y}" font-size="10" fill="#555">${esc(line)}</text>`);
  }
  y += 10;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${y}" viewBox="0 0 ${width} ${y}" font-family="DejaVu Sans, Verdana, sans-serif">\n<rect width="100%" height="100%" fill="#fff"/>\n${parts.join('\n')}\n</svg>\n`;
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
