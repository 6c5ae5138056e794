const { withFastTestDb } = require('fast-test-db/jest');

module.exports = withFastTestDb({
  testEnvironment: 'node',
  roots: ['<rootDir>/jest'],
  transform: {},
  reporters: ['default', ['fast-test-db/reporters/jest', { outputFile: 'jest-reporter.json' }]],
  setupFilesAfterEnv: ['fast-test-db/reporters/jest-setup'],
});
