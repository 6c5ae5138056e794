import 'reflect-metadata';
import type { DataSourceOptions } from 'typeorm';
import { Point } from './point.entity';

/** The app's own DataSource options. Tests reuse them unchanged: fast-test-db swaps in its server. */
export const dataSourceOptions: DataSourceOptions = {
  type: 'postgres',
  host: process.env.DB_HOST ?? 'localhost',
  port: Number(process.env.DB_PORT ?? 5432),
  username: process.env.DB_USER ?? 'app',
  password: process.env.DB_PASSWORD ?? 'app',
  database: process.env.DB_NAME ?? 'app',
  entities: [Point],
  synchronize: false,
};
