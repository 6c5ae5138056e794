import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

// Column types are spelled out rather than read from decorator metadata: inside the fast-test-db
// repository tsx loads this file first (see README), and esbuild emits no metadata.
@Entity()
export class Point {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column('int')
  x!: number;

  @Column('int')
  y!: number;
}
