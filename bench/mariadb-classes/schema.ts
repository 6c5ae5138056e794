/**
 * The MariaDB class workload's application schema, standing in for a CodeIgniter app's migrations: 30 InnoDB tables
 * in foreign-key chains of three, plus seed rows in a lookup table. Every name is quoted.
 */
import { quoteIdent } from '../../src/engines/quote.js';

const id = (n: string) => quoteIdent('mysql', n);
export const TABLES = Array.from({ length: 30 }, (_, i) => `t${String(i + 1).padStart(2, '0')}`);

/** The parent each table points at: the first of each chain of three points at `country`. */
export function parentOf(i: number): string {
  return i % 3 === 0 ? 'country' : TABLES[i - 1]!;
}

export function schemaStatements(): string[] {
  const out = [
    `CREATE TABLE ${id('country')} (id INT AUTO_INCREMENT PRIMARY KEY, code CHAR(2) NOT NULL UNIQUE, name VARCHAR(100) NOT NULL) ENGINE=InnoDB`,
    `INSERT INTO ${id('country')} (code, name) VALUES ('KR','Korea'),('DE','Germany'),('FR','France'),('US','United States')`,
  ];
  TABLES.forEach((t, i) => {
    const parent = parentOf(i);
    out.push(
      `CREATE TABLE ${id(t)} (id BIGINT AUTO_INCREMENT PRIMARY KEY, parent_id BIGINT NULL, name VARCHAR(200) NOT NULL DEFAULT '', qty INT NOT NULL DEFAULT 0, ` +
        `price DECIMAL(12,2) NULL, created_at TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3), KEY ${id(`idx_${t}_name`)} (name)` +
        (parent === 'country'
          ? ''
          : `, CONSTRAINT ${id(`fk_${t}_${parent}`)} FOREIGN KEY (parent_id) REFERENCES ${id(parent)}(id) ON DELETE CASCADE`) +
        `) ENGINE=InnoDB`,
    );
  });
  return out;
}
