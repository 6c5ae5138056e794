/**
 * Jest transform for the library's own TypeScript (src/, adapters/), which is written as ESM with
 * import.meta: users get it prebuilt from dist/, the bench compiles it on the fly to CommonJS.
 * Test files keep the transform each step is measuring (ts-jest or @swc/jest).
 */
const { createHash } = require('node:crypto');
const { transformSync } = require('esbuild');

module.exports = {
  process(source, filename) {
    const out = transformSync(source, {
      loader: 'ts',
      format: 'cjs',
      target: 'node20',
      sourcefile: filename,
      // Peers load through import(); inside Jest's CommonJS sandbox that must become require().
      supported: { 'dynamic-import': false },
      logLevel: 'silent',
    });
    return { code: out.code };
  },
  getCacheKey(source, filename) {
    return createHash('sha1').update('esbuild-transform-1').update(filename).update(source).digest('hex');
  },
};
