// What every test file does, whatever the runner: reach the database in DATABASE_URL as an app
// would, write a row, and record which database it was and how many rows it held.
const { appendFileSync, readFileSync } = require('node:fs');

/** The CPUs a thread or process may run on (Linux), to see CPU pairing from outside. */
function cpusOf(task) {
  if (process.platform !== 'linux') return undefined;
  return /^Cpus_allowed_list:\s*(.+)$/m.exec(readFileSync(`/proc/${task}/status`, 'utf8'))?.[1]?.trim();
}
const pg = require('pg');

exports.probe = async function probe(runner, file, worker) {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL is not set in this worker');
  const client = new pg.Client(url);
  await client.connect();
  try {
    const db = (await client.query('SELECT current_database() AS d')).rows[0].d;
    await client.query('INSERT INTO visit (file) VALUES ($1)', [file]);
    const rows = (await client.query('SELECT count(*)::int AS n FROM visit')).rows[0].n;
    // PROBE_PAIRING: work enough for the server process (tens of ms of CPU) that the runner
    // integration's next look (every 100 ms) pairs this session with the worker's CPU.
    if (process.env.PROBE_PAIRING) await client.query('SELECT sum(i) FROM generate_series(1, 500000) AS i');
    const backend = (await client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
    // Busy long enough that the runner hands the other file to its other worker.
    await new Promise((r) => setTimeout(r, Number(process.env.PROBE_SLEEP_MS ?? 500)));
    // Under Vitest, the setup files its worker was given for this file.
    const setupFiles = globalThis.__vitest_worker__?.config?.setupFiles;
    const record = { runner, file, worker: worker === undefined ? undefined : String(worker), pid: process.pid, db, url, rows, setupFiles };
    if (process.env.PROBE_PAIRING) Object.assign(record, { threadCpus: cpusOf('thread-self'), sessionCpus: cpusOf(backend) });
    appendFileSync(process.env.PROBE_REPORT, JSON.stringify(record) + '\n');
    return record;
  } finally {
    await client.end();
  }
};
