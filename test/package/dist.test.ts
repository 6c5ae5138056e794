/**
 * The built package as users load it: ESM import and CommonJS require of dist/, each starting a
 * server (so the keeper is found next to the bundle) and getting a database; and the bin.
 * `npm test` builds first; this file fails clearly when dist/ is missing.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(__dirname, '..', '..');
const dist = (f: string) => join(ROOT, 'dist', f);

function node(args: string[], input?: string): string {
  return execFileSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', input, env: { ...process.env, NODE_OPTIONS: '' }, timeout: 120_000 });
}

const body = (load: string) => `
  const { createTestDatabase } = ${load};
  const pg = require('pg');
  (async () => {
    const db = await createTestDatabase({ worker: 'dist-' + process.argv[1], cacheKey: 'dist' });
    const c = new pg.Client(db.url); await c.connect();
    const { rows } = await c.query('select current_database() as name'); await c.end();
    await db.destroy();
    console.log(JSON.stringify({ name: rows[0].name, expected: db.name, owned: db.server.owned }));
  })().catch((e) => { console.error(e); process.exit(1); });`;

describe('the built package', () => {
  it('has been built', () => {
    expect(existsSync(dist('index.js')), 'run `npm run build` (npm test does) before this file').toBe(true);
  });

  it('works from CommonJS', () => {
    const out = JSON.parse(node(['-e', body(`require(${JSON.stringify(dist('index.cjs'))})`), 'cjs']).trim());
    expect(out.name).toBe(out.expected);
    expect(out.owned).toBe(true);
  });

  it('works from an ES module', () => {
    const script = `import { createRequire } from 'node:module'; const require = createRequire(${JSON.stringify(join(ROOT, 'package.json'))});
      const mod = await import(${JSON.stringify(dist('index.js'))});` + body('mod');
    const out = JSON.parse(node(['--input-type=module', '-e', script, 'esm']).trim());
    expect(out.name).toBe(out.expected);
  });

  it('ships a working bin', () => {
    const help = node([dist('cli.js'), '--help']);
    expect(help).toMatch(/doctor/);
    expect(help).toMatch(/clean/);
  });
});
