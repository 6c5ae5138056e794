/**
 * Starts Jest with its arguments taken from BENCH_JEST_ARGS rather than from the command line, so
 * that this process's argv holds no arguments: the library's keeper module, when imported, treats
 * a process's first argument as its state directory (reported; see bench/README.md).
 */
if (process.env.NODE_ENV == null) process.env.NODE_ENV = 'test';
require('jest').run(JSON.parse(process.env.BENCH_JEST_ARGS || '[]'));
