/**
 * Vitest setup file (`setupFiles`): runs in the worker before each test file. Reads the handoff
 * from `inject` (right in forks and threads alike), exports this worker's URL into the app's env
 * var, and makes the worker's database ready before the test file is imported (top-level await),
 * so that an app which connects or queries at import finds it. Then the hooks that reset.
 */
import { afterAll, beforeEach, inject } from 'vitest';
import { PROVIDE_KEY, requireHandoff, type Handoff } from './handoff.js';
import { installWorker, readyForFile } from './worker.js';

const handoff = ((inject as (key: string) => unknown)(PROVIDE_KEY) as Handoff | undefined) ?? requireHandoff('vitest');
const target = installWorker(handoff, { afterAll, beforeEach });
await readyForFile(handoff, target.name);
