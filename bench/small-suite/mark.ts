// Each file's first test notes the wall clock once: the bench takes the earliest as "first test".
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

let marked = false;

export function markFirstTest(): void {
  const dir = process.env.BENCH_SMALL_MARKS;
  if (marked || !dir) return;
  marked = true;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${process.pid}-${Math.random().toString(36).slice(2)}`), String(Date.now()));
}
