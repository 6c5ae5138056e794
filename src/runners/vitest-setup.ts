/**
 * Vitest setup file (`setupFiles`): runs in the worker before each test file. Reads the handoff
 * from `inject` (right in forks and threads alike), exports this worker's URL into the app's env
 * var, and registers the hooks that clone or reset.
 */
import { afterAll, beforeAll, beforeEach, inject } from 'vitest';
import { PROVIDE_KEY, requireHandoff, type Handoff } from './handoff.js';
import { installWorker } from './worker.js';

const handoff = ((inject as (key: string) => unknown)(PROVIDE_KEY) as Handoff | undefined) ?? requireHandoff('vitest');
installWorker(handoff, { beforeAll, afterAll, beforeEach });
