/**
 * Draws the SVG chart of a saved result again, after a change to the chart's layout:
 *   tsx bench/render.ts bench/results/<date>-<name>.json [...]
 * The samples are not touched; the chart is written next to its JSON.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { svgChart, type BenchResult } from './lib/report.js';

const files = process.argv.slice(2);
if (files.length === 0) {
  process.stderr.write('usage: tsx bench/render.ts <result.json> [...]\n');
  process.exitCode = 2;
}
for (const file of files) {
  const svg = file.replace(/\.json$/, '.svg');
  writeFileSync(svg, svgChart(JSON.parse(readFileSync(file, 'utf8')) as BenchResult));
  process.stdout.write(`written ${svg}\n`);
}
