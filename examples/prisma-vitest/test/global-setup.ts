// Generates the Prisma client before the tests, as `prisma generate` in a build step would.
// The generated client is build output (gitignored).
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export default function setup() {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const cli = join(dirname(createRequire(import.meta.url).resolve('prisma/package.json')), 'build/index.js');
  execFileSync(process.execPath, [cli, 'generate', '--schema', join(root, 'prisma/schema.prisma')], {
    cwd: root,
    stdio: 'pipe',
    // `generate` needs no schema engine; pointing the variable at any executable stops the CLI
    // from trying to download one on machines that cannot reach binaries.prisma.sh.
    env: {
      ...process.env,
      PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? '/bin/true',
      PRISMA_HIDE_UPDATE_MESSAGE: '1',
    },
  });
}
