import { test } from 'vitest';
import cases from '../cases.cjs';

for (const [name, run] of Object.entries(cases['mysql'])) test(name, run);
