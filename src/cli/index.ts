#!/usr/bin/env node
/** The `fast-test-db` bin. Ctrl-C and SIGTERM abort the running command, which then cleans up itself. */
import { main } from './main.js';

const controller = new AbortController();
let interrupted = 0;
const onSignal = () => {
  // A second Ctrl-C means "now": leave without waiting for a clean stop.
  if (++interrupted > 1) process.exit(130);
  controller.abort();
};
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env }, controller.signal).then(
  (code) => {
    process.exitCode = code;
    // Pooled sockets or timers of a driver must not keep a finished command alive.
    setTimeout(() => process.exit(code), 200).unref();
  },
  (e) => {
    process.stderr.write(`fast-test-db: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  },
);
