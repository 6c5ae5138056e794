const cases = require('../cases.cjs');

for (const [name, run] of Object.entries(cases['mysql2'])) test(name, run);
