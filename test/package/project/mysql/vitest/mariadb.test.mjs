import { test } from 'vitest';
import cases from '../cases.cjs';

for (const [name, run] of Object.entries(cases['mariadb'])) test(name, run);
