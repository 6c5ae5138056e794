/**
 * Loading testcontainers, the peer the container provider drives: which version is installed and
 * whether it runs on this Node, said with both versions instead of as a Docker engine that fails.
 */
import { createRequire } from 'node:module';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { FastTestDbError, messageOf } from '../../errors.js';
import { here } from '../../here.js';
import { loadPeer } from '../../util/peer.js';

/** The installed testcontainers: its version and the Node versions it declares, read from its package.json. */
function installed(specifier: string): { version: string; node?: string } | undefined {
  let dir: string;
  try {
    dir = dirname(createRequire(join(here(), 'x.js')).resolve(specifier));
  } catch {
    return undefined;
  }
  for (; dir !== dirname(dir); dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (!existsSync(file)) continue;
    const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string; engines?: { node?: string } };
    if (pkg.name === 'testcontainers') return { version: pkg.version ?? '?', node: pkg.engines?.node };
  }
  return undefined;
}

/** The lowest Node version a `>= x.y.z` range allows; undefined for any other form of range. */
function nodeFloor(range: string | undefined): number[] | undefined {
  const m = /^\s*>=\s*v?(\d+)(?:\.(\d+))?(?:\.(\d+))?\s*$/.exec(range ?? '');
  return m ? [Number(m[1]), Number(m[2] ?? 0), Number(m[3] ?? 0)] : undefined;
}

function below(version: string, floor: number[]): boolean {
  const v = version.replace(/^v/, '').split('.').map(Number);
  for (let i = 0; i < 3; i++) if ((v[i] ?? 0) !== floor[i]) return (v[i] ?? 0) < floor[i]!;
  return false;
}

function unsupported(found: { version: string; node?: string }, why: string, cause?: unknown): FastTestDbError {
  return new FastTestDbError(
    'PEER_UNSUPPORTED',
    `testcontainers ${found.version} cannot run on Node ${process.version}${found.node ? ` (it needs Node ${found.node})` : ''}: ${why}`,
    'install testcontainers 11, the version tested on Node 20 and later (npm install --save-dev testcontainers@^11.9.0), or run a Node that testcontainers supports',
    { cause },
  );
}

/**
 * Loads testcontainers, or says why it cannot be: a version whose Node range excludes this Node
 * (testcontainers 12 needs Node 22.22 and crashes at import on Node 20) is named with both
 * versions, rather than reported as a Docker engine that does not answer.
 */
export async function loadTestcontainers(specifier = 'testcontainers'): Promise<any> {
  const found = installed(specifier);
  const floor = nodeFloor(found?.node);
  if (found && floor && below(process.version, floor)) throw unsupported(found, 'its package declares a newer Node');
  let tc: any;
  try {
    tc = await loadPeer<any>(specifier, "server: 'container'");
  } catch (e) {
    if (e instanceof FastTestDbError) throw e;
    throw unsupported(found ?? { version: '(unknown version)' }, `importing it failed: ${messageOf(e)}`, e);
  }
  return tc.GenericContainer ? tc : tc.default;
}
