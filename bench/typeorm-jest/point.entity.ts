/** The TypeORM workload's entity: one row per point, in a table named `point` (a name pg-mem cannot insert into). */
import 'reflect-metadata';
import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

@Entity('point')
export class Point {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ type: 'int' })
  amount!: number;

  @Column({ type: 'varchar', length: 64, default: 'bench' })
  description!: string;

  static of(amount: number): Point {
    const p = new Point();
    p.amount = amount;
    return p;
  }
}
