/**
 * node:test reads migrate only from fast-test-db.config.*: a project without one gets empty
 * databases, and the run says so once (not once per file), naming the file to create.
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { ROOT, run, sandbox } from './harness.js';

const NOTE = 'so every test file gets an empty database';

test('a run without fast-test-db.config.* says once that the workers get empty databases, and which file to create', async () => {
  const sb = sandbox('node-test-noconfig');
  try {
    const project = join(sb.dir, 'project');
    mkdirSync(project);
    // The project's node_modules are the repository's (tsx, the drivers), as an installed project has them.
    symlinkSync(join(ROOT, 'node_modules'), join(project, 'node_modules'));
    for (const f of ['a', 'b', 'c'])
      writeFileSync(join(project, `${f}.test.mjs`), "import { test } from 'node:test';\ntest('runs', () => {});\n");
    const r = await run(
      sb,
      process.execPath,
      // tsx by path: the project folder has no node_modules of its own.
      [
        '--import',
        join(ROOT, 'node_modules/tsx/dist/loader.mjs'),
        '--import',
        join(ROOT, 'src/runners/node-test/index.ts'),
        '--test',
        '--test-concurrency=2',
        'a.test.mjs',
        'b.test.mjs',
        'c.test.mjs',
      ],
      {},
      project,
    );
    expect(r.code, r.output).toBe(0);
    expect(r.output.split(NOTE).length - 1, r.output).toBe(1);
    expect(r.output).toContain(`no fast-test-db.config.{ts,mts,cts,mjs,js,cjs,json} in ${project}`);
    expect(r.output).toContain(`fix: create ${join(project, 'fast-test-db.config.mjs')}: export default { migrationFiles:`);
  } finally {
    await sb.cleanup();
  }
});
