// What every test file does, whatever the runner: reach the database in DATABASE_URL as an app
// would, write a row, and record which database it was and how many rows it held.
const { appendFileSync } = require('node:fs');
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
    // Busy long enough that the runner hands the other file to its other worker.
    await new Promise((r) => setTimeout(r, Number(process.env.PROBE_SLEEP_MS ?? 500)));
    const record = { runner, file, worker: worker === undefined ? undefined : String(worker), pid: process.pid, db, url, rows };
    appendFileSync(process.env.PROBE_REPORT, JSON.stringify(record) + '\n');
    return record;
  } finally {
    await client.end();
  }
};
