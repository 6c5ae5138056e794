import { defineConfig } from 'tsup';

/** Public entry points (package.json "exports") and the files we spawn or runners load by path. */
export const entries = {
  index: 'src/index.ts',
  typeorm: 'adapters/typeorm/index.ts',
  prisma: 'adapters/prisma/index.ts',
  drizzle: 'adapters/drizzle/index.ts',
  keeper: 'src/server/keeper.ts',
};

export default defineConfig({
  entry: entries,
  format: ['esm', 'cjs'],
  dts: true,
  splitting: true,
  sourcemap: false,
  clean: true,
  shims: true,
  target: 'node20',
  platform: 'node',
});
