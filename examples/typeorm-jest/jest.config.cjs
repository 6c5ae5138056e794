/**
 * Jest + @swc/jest (decorators with metadata, as TypeORM entities need), wrapped by fast-test-db:
 * its global setup starts a tuned PostgreSQL (or joins the server in FAST_TEST_DB_URL) and builds
 * a template from the entities once per change of their schema; each worker clones it.
 */
const { withFastTestDb } = require('fast-test-db/jest');
const { typeormTemplate } = require('fast-test-db/typeorm');

const swc = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true },
    target: 'es2022',
  },
  module: { type: 'commonjs' },
};

module.exports = withFastTestDb(
  {
    rootDir: __dirname,
    testEnvironment: 'node',
    testMatch: ['<rootDir>/test/**/*.test.ts'],
    transform: { '^.+\\.ts$': ['@swc/jest', swc] },
    testTimeout: 600_000,
  },
  {
    // Required here rather than at the top: the global setup calls this, in Jest's main process,
    // while Jest's transform is hooked into require, so the entities compile like the tests do.
    // A fresh clone for each test file: files count the rows they inserted.
    isolation: 'file',
    adapter: () => typeormTemplate(require('./src/data-source').dataSourceOptions),
  },
);
