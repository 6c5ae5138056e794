const cases = require('../cases.cjs');

for (const [name, run] of Object.entries(cases['mysql'])) test(name, run);
