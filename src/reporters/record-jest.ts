/**
 * Jest setup file (setupFilesAfterEnv) of the time/heap reporter: instruments the database drivers
 * through the sandbox's own require (Jest gives each test file its own module registry) and
 * records, per test file, the time spent waiting on queries and the heap after the file.
 * Jest runs afterAll hooks in the order they were declared, so queries made in the test file's
 * own afterAll are not counted.
 */
import { recordThisFile } from './records.js';

declare const require: ((id: string) => unknown) | undefined;
declare const expect: { getState(): { testPath?: string } };
declare function afterAll(fn: () => void): void;

recordThisFile(afterAll, () => expect.getState().testPath, typeof require === 'function' ? require : undefined);
