/**
 * Vitest setup file (`setupFiles`), as small as a file can be: Vitest runs a setup file through
 * its own module runner, in every test file, and that costs by the file's size (about 5 ms per
 * test file for the 10 KB of setup-body.ts, measured in forks on 2 cores). The body is imported
 * from here natively, as Node imports any file of a package: Vitest's "setup" for 5 files went
 * from 102-112 ms to 83-92 ms (docs/benchmarks.md).
 * Built, it is dist/runners/vitest-setup-body.js next to this file; from source, setup-body.ts.
 */
await import(new URL(import.meta.url.endsWith('.ts') ? './setup-body.ts' : './vitest-setup-body.js', import.meta.url).href);
export {};
