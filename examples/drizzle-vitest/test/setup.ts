/** Each test file opens the app's pool lazily (src/db.ts); close it when the file is done. */
import { afterAll } from 'vitest';
import { closeDb } from '../src/db';

afterAll(closeDb);
