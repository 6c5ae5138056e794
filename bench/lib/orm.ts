/**
 * Per-row insert cost per ORM path, from the ORM benches other parts of the project keep
 * (bench/typeorm-insert.ts, prisma-insert.ts, drizzle-insert.ts): each runs as its own process and
 * writes bench/results/<name>.json, which is read back here. Each figure there is already a median
 * of interleaved slices, so it enters the table as one sample.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { row, withSpeedups, type Row, type Section } from './stats.js';

const ROOT = resolve(import.meta.dirname, '../..');
const BENCHES = [
  { name: 'typeorm-insert', orm: 'TypeORM' },
  { name: 'drizzle-insert', orm: 'Drizzle' },
  { name: 'prisma-insert', orm: 'Prisma' },
];

interface OrmResult {
  engine: string;
  path: string;
  shape: string;
  usPerRow: number;
  driver?: string;
}

function run(script: string, quick: boolean): Promise<string | undefined> {
  return new Promise((res) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, ...(quick ? ['--quick'] : [])], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    child.once('exit', (code) => res(code === 0 ? undefined : err.trim().split('\n').slice(-3).join(' ') || `exited with ${code}`));
  });
}

export async function runOrmBenches(opts: { quick: boolean; log: (l: string) => void }): Promise<Section> {
  const rows: Row[] = [];
  const notes: string[] = [];
  for (const b of BENCHES) {
    const script = join(ROOT, 'bench', `${b.name}.ts`);
    const out = join(ROOT, 'bench', 'results', `${b.name}.json`);
    if (!existsSync(script)) {
      notes.push(`${b.name}.ts is not in this checkout.`);
      continue;
    }
    const before = existsSync(out) ? statSync(out).mtimeMs : 0;
    const started = Date.now();
    const failure = await run(script, opts.quick);
    opts.log(`  orm: ${b.name} ${failure ? 'FAILED ' + failure : 'done'} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    if (failure || !existsSync(out) || statSync(out).mtimeMs === before) {
      rows.push(row(b.name, `${b.orm}`, [], { error: failure ?? 'wrote no results' }));
      continue;
    }
    const results = (JSON.parse(readFileSync(out, 'utf8')) as { results: OrmResult[] }).results;
    // Database paths only: rows measuring the library's own cost against a stub driver are not comparable.
    for (const r of results.filter(
      (x) => x.engine === 'postgres' && x.shape === 'per row' && (!x.driver || x.driver === 'pg') && !/stub/.test(x.path),
    )) {
      const id = `${b.name}:${r.path}`;
      // One raw-driver baseline for the table: TypeORM's bench measures it on the same kind of pool.
      if (/^raw driver/.test(r.path) && b.name !== 'typeorm-insert') continue;
      rows.push(
        row(/^raw driver, prepared$/.test(r.path) ? 'raw' : id, /^raw driver/.test(r.path) ? `pg ${r.path}` : `${b.orm} ${r.path}`, [
          r.usPerRow,
        ]),
      );
    }
  }
  notes.push(
    `PostgreSQL on the tuned server fast-test-db starts; one row per statement${opts.quick ? ', each bench in its --quick mode' : ''}. Each figure is that bench's own median of interleaved slices (n=1 here).`,
  );
  return withSpeedups({
    id: 'orm-insert',
    title: 'Per-row insert per ORM path vs raw driver (microseconds per row)',
    unit: 'us',
    baseline: 'raw',
    rows,
    notes,
  });
}
