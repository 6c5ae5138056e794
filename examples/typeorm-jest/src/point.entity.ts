import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

// Column types are spelled out rather than read from decorator metadata, so that the entity means
// the same whichever compiler loads it (esbuild and tsx emit no metadata; @swc/jest here does).
@Entity()
export class Point {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column('int')
  x!: number;

  @Column('int')
  y!: number;
}
