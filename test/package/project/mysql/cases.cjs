// What each test file does, whatever the runner: reach DATABASE_URL through one driver's callback
// and promise APIs (and TypeORM 0.3 on mysqljs), as an app would, and check what came back.
const assert = require('node:assert/strict');

function connection() {
  const u = new URL(process.env.DATABASE_URL);
  return {
    host: u.hostname,
    port: Number(u.port),
    user: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
    database: decodeURIComponent(u.pathname.slice(1)),
  };
}

const callback = (run) => new Promise((res, rej) => run((err, value) => (err ? rej(err) : res(value))));

async function count(query, driver) {
  const rows = await query(`SELECT COUNT(*) AS n FROM visit WHERE driver = '${driver}'`);
  return Number(rows[0].n);
}

exports.mysql2 = {
  async 'callback API'() {
    const mysql = require('mysql2');
    const c = mysql.createConnection(connection());
    try {
      let returned;
      await callback((done) => {
        returned = c.query('INSERT INTO visit (driver) VALUES (?)', ['mysql2 callback'], done);
      });
      assert.equal(returned.constructor.name, 'Query');
      await callback((done) => c.execute('SELECT 1 AS one', done));
      const rows = await callback((done) => c.query("SELECT COUNT(*) AS n FROM visit WHERE driver = 'mysql2 callback'", done));
      assert.equal(Number(rows[0].n), 1);
      const err = await callback((done) => c.query('SELECT nope FROM visit', done)).catch((e) => e);
      assert.equal(err.code, 'ER_BAD_FIELD_ERROR');
    } finally {
      await callback((done) => c.end(done));
    }
  },
  async 'promise API and pool'() {
    const mysql = require('mysql2/promise');
    const c = await mysql.createConnection(connection());
    const pool = mysql.createPool({ ...connection(), connectionLimit: 2 });
    try {
      await c.query('SET SESSION lock_wait_timeout = 5');
      const [res] = await c.execute('INSERT INTO visit (driver) VALUES (?)', ['mysql2 promise']);
      assert.equal(res.affectedRows, 1);
      assert.equal(await count(async (sql) => (await pool.query(sql))[0], 'mysql2 promise'), 1);
    } finally {
      await c.end();
      await pool.end();
    }
  },
};

exports.mysql = {
  async 'callback API and pool'() {
    const mysql = require('mysql');
    assert.equal(typeof mysql.createPool, 'function');
    const c = mysql.createConnection(connection());
    const pool = mysql.createPool({ ...connection(), connectionLimit: 2 });
    try {
      let returned;
      await callback((done) => {
        returned = c.query('INSERT INTO visit (driver) VALUES (?)', ['mysql'], done);
      });
      assert.equal(returned.constructor.name, 'Query');
      assert.equal(await count((sql) => callback((done) => pool.query(sql, done)), 'mysql'), 1);
    } finally {
      await callback((done) => c.end(done));
      await callback((done) => pool.end(done));
    }
  },
  async 'TypeORM 0.3 on the mysql driver'() {
    const { DataSource, EntitySchema } = require('typeorm-0.3');
    const Visit = new EntitySchema({
      name: 'Visit',
      tableName: 'visit',
      columns: { id: { type: Number, primary: true, generated: true }, driver: { type: String } },
    });
    const ds = new DataSource({ type: 'mysql', ...connection(), username: connection().user, entities: [Visit] });
    await ds.initialize();
    try {
      assert.equal(ds.driver.mysql, require('mysql'));
      await ds.getRepository(Visit).save({ driver: 'typeorm mysql' });
      assert.equal(await ds.getRepository(Visit).count({ where: { driver: 'typeorm mysql' } }), 1);
    } finally {
      await ds.destroy();
    }
  },
};

exports.mariadb = {
  async 'promise API and pool'() {
    const mariadb = require('mariadb');
    const c = await mariadb.createConnection(connection());
    const pool = mariadb.createPool({ ...connection(), connectionLimit: 2 });
    try {
      const res = await c.query('INSERT INTO visit (driver) VALUES (?)', ['mariadb promise']);
      assert.equal(res.affectedRows, 1);
      await c.batch('INSERT INTO visit (driver) VALUES (?)', [['mariadb batch'], ['mariadb batch']]);
      assert.equal(await count((sql) => pool.query(sql), 'mariadb promise'), 1);
      assert.equal(await count((sql) => c.query(sql), 'mariadb batch'), 2);
    } finally {
      await c.end();
      await pool.end();
    }
  },
  async 'callback API and pool'() {
    const mariadb = require('mariadb/callback');
    const c = mariadb.createConnection(connection());
    const pool = mariadb.createPool({ ...connection(), connectionLimit: 2 });
    try {
      await callback((done) => c.query('INSERT INTO visit (driver) VALUES (?)', ['mariadb callback'], done));
      await callback((done) => c.execute('SELECT 1 AS one', done));
      assert.equal(await count((sql) => callback((done) => pool.query(sql, done)), 'mariadb callback'), 1);
    } finally {
      await callback((done) => c.end(done));
      await callback((done) => pool.end(done));
    }
  },
};
