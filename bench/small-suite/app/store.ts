// The app's database access: one small pool from the URL in the environment, read when the module
// loads, as an app configured by env vars does.
import pg from 'pg';

export function openPool(): pg.Pool {
  const url = process.env.APP_DATABASE_URL;
  if (!url) throw new Error('APP_DATABASE_URL is not set when the app starts');
  return new pg.Pool({ connectionString: url, max: 2 });
}

export const SCHEMA = `
CREATE TABLE customer (id serial PRIMARY KEY, name text NOT NULL, created_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE orders (id serial PRIMARY KEY, customer_id int NOT NULL REFERENCES customer(id), total_cents int NOT NULL);
CREATE TABLE order_line (id serial PRIMARY KEY, order_id int NOT NULL REFERENCES orders(id), sku text NOT NULL, cents int NOT NULL);
CREATE INDEX ON orders (customer_id);
CREATE INDEX ON order_line (order_id);
`;

export const TABLES = ['order_line', 'orders', 'customer'];
