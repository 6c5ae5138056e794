/** Jest + @swc/jest (decorators with metadata, as TypeORM entities need). */
const path = require('node:path');

const swc = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true },
    target: 'es2022',
  },
  module: { type: 'commonjs' },
};

module.exports = {
  rootDir: __dirname,
  testEnvironment: 'node',
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', swc] },
  moduleNameMapper: {
    // In your project, delete this line: 'fast-test-db/typeorm' resolves to the installed package.
    // Here it points at the library's source so that the example runs without a build.
    '^fast-test-db/typeorm$': path.join(__dirname, '../../adapters/typeorm/index.ts'),
    // The library's ESM source imports './x.js'; map those to the .ts files.
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  testTimeout: 600_000,
};
