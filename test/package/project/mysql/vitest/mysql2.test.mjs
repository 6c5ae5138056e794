import { test } from 'vitest';
import cases from '../cases.cjs';

for (const [name, run] of Object.entries(cases['mysql2'])) test(name, run);
