const cases = require('../cases.cjs');

for (const [name, run] of Object.entries(cases['mariadb'])) test(name, run);
