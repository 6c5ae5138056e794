// TIMING=0: the same suite without the reporter and its setup file.
const { withFastTestDb } = require('fast-test-db/jest');

const timing = process.env.TIMING !== '0';
module.exports = withFastTestDb({
  testEnvironment: 'node',
  roots: ['<rootDir>/jest'],
  transform: {},
  ...(timing
    ? {
        reporters: ['default', ['fast-test-db/reporters/jest', { outputFile: 'jest-reporter.json' }]],
        setupFilesAfterEnv: ['fast-test-db/reporters/jest-setup'],
      }
    : {}),
});
