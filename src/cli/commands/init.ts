/** `fast-test-db init`: reads the project and writes the smallest change that adopts the library. */
import { resolve } from 'node:path';
import { COMMON_HELP, COMMON_OPTIONS, str, type Command } from '../command.js';
import { detect } from '../init/detect.js';
import { changedLines, unifiedDiff } from '../init/diff.js';
import { plan } from '../init/plan.js';
import { render } from '../init/render.js';
import { refusals, write } from '../init/write.js';

export const initCommand: Command = {
  name: 'init',
  summary: 'read the project and write what adopts fast-test-db: the runner wrapper, the template recipe, the env mapping',
  help: `Usage: fast-test-db init [options]

Reads the project in the current folder (package.json and its lock file, the runner's config, the
ORM's data source, schema or drizzle.config, the migrations folder, .env files, docker-compose and
CI files, and the env names and credentials the tests and the connection code use) and writes the
smallest change that runs its suite on fast-test-db:
  Jest, Vitest       the config wrapped in withFastTestDb(config, options)
  Mocha, node:test   fast-test-db.config.* with the options, and the runner's flag in the test script
The options: the template recipe (the ORM's adapter, or the app's own migrate and seed commands),
env (the app's env names: what each gets), login (the user and password the code spells out).

It prints what it inferred and from where (file:line), the unified diff, and what is left to do by
hand; it asks nothing. It changes no file that already names fast-test-db, and nothing at all when
a fast-test-db.config.* exists, unless --force.

Options:
  --dry-run         print the diff and what was inferred, write nothing
  --force           write even over a file that already uses fast-test-db
  --dir DIR         the project's folder (default: the current one)
${COMMON_HELP}

Exit codes: 0 written (or a dry run), 1 refused (WOULD_OVERWRITE) or a shape init cannot change (UNSUPPORTED).`,
  options: { ...COMMON_OPTIONS, 'dry-run': { type: 'boolean' }, force: { type: 'boolean' }, dir: { type: 'string' } },
  async run({ values, out }) {
    const dir = resolve(str(values.dir) ?? process.cwd());
    const dryRun = Boolean(values['dry-run']);
    const force = Boolean(values.force);
    const project = detect(dir);
    const p = plan(project);
    const changes = render(project, p);
    const files = changes.map((c) => {
      const diff = unifiedDiff(c.path, c.old, c.next);
      return { path: c.path, created: c.old === undefined, diff, lines: changedLines(diff) };
    });
    const refused = refusals(dir, changes);
    if (!dryRun) write(dir, changes, { force });
    const total = files.reduce((n, f) => n + f.lines, 0);
    out.data({
      dir,
      dryRun,
      written: !dryRun,
      inferred: p.inferred,
      files,
      lines: total,
      left: p.left,
      notes: p.notes,
      install: p.install,
      refused,
    });

    out.line(out.c.bold('inferred'));
    const width = Math.max(...p.inferred.map((i) => i.what.length));
    for (const i of p.inferred) out.line(`  ${i.what.padEnd(width)}  ${i.value}  ${out.c.dim(i.from)}`);
    out.line();
    for (const f of files) out.line(f.diff.trimEnd());
    out.line();
    const verb = dryRun ? 'would change' : 'changed';
    out.line(
      `${verb} ${total} line(s) in ${files.length} file(s): ${files.map((f) => `${f.path}${f.created ? ' (new)' : ''} ${f.lines}`).join(', ')}`,
    );
    if (dryRun && refused.length) out.line(out.c.yellow(`without --force, init would refuse: ${refused.join('; ')}`));
    if (p.left.length) {
      out.line(out.c.bold(`left by hand (${p.left.length})`));
      for (const l of p.left) out.line(`  - ${l}`);
    } else out.line('left by hand: nothing');
    for (const n of p.notes) out.line(out.c.dim(`  note: ${n}`));
    if (p.install) out.line(`${dryRun ? 'then' : 'next'}: ${p.install}`);
    if (dryRun) out.line(out.c.dim('dry run: nothing written'));
    return 0;
  },
};
