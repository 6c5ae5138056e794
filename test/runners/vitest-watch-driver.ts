// Drives Vitest in watch mode through its Node API on the fixture project: one run, one re-run
// (as a file change would trigger), then close. Started by vitest-watch.test.ts, cwd = fixture.
import { startVitest } from 'vitest/node';

const vitest = await startVitest('test', [], { watch: true, config: 'vitest.config.ts', reporters: ['dot'] });
const specs = await vitest.globTestSpecifications();
await vitest.rerunTestSpecifications(specs, true);
const failed = vitest.state.getCountOfFailedTests();
await vitest.close();
process.exitCode = failed > 0 ? 1 : 0;
