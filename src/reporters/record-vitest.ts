/**
 * Vitest setup file of the time/heap reporter: instruments the database drivers and records, per
 * test file, the time spent waiting on queries and the heap after the file. Add it to
 * `setupFiles` next to the reporter; without the reporter it does nothing.
 */
import { afterAll, beforeAll, expect } from 'vitest';
import { recordThisFile } from './records.js';

// Vitest runs after-hooks in reverse order, so this one, registered first, runs after the file's own.
// Drivers the project does not list but something loaded (the library's own pg) are wrapped in a beforeAll, once loaded.
recordThisFile(afterAll, () => expect.getState().testPath, undefined, beforeAll);
