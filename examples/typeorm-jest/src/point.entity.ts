import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

@Entity()
export class Point {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column()
  x!: number;

  @Column()
  y!: number;
}
