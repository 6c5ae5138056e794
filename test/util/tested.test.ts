/** A version outside the tested ones gets one line naming them, once per package; a tested one, none. */
import { expect, it } from 'vitest';
import { noteUntested, untestedNote } from '../../src/util/tested.js';

it('tested versions say nothing; versions beside them name the tested ones', () => {
  for (const v of ['0.2.45', '0.2.51', '0.3.20', '0.3.31', '1.1.1', '1.4.0']) expect(untestedNote('typeorm', v), v).toBeUndefined();
  for (const v of ['0.2.37', '0.3.7', '1.0.0', '2.0.0'])
    expect(untestedNote('typeorm', v), v).toMatch(
      new RegExp(`^fast-test-db: typeorm ${v.replace(/\./g, '\\.')} is not one of the tested versions \\(0\\.2\\.45\\+`),
    );
  expect(untestedNote('jest', '27.5.1')).toMatch(/jest 27\.5\.1 .*\(29\.7\+ and 30\)/);
  expect(untestedNote('jest', '30.5.2')).toBeUndefined();
  expect(untestedNote('typeorm', 'unknown')).toBeUndefined();
});

it('one line per package per process', () => {
  let text = '';
  const stderr = { write: (s: string) => ((text += s), true) };
  noteUntested('typeorm', '0.3.7', stderr);
  noteUntested('typeorm', '0.2.37', stderr);
  noteUntested('jest', '27.5.1', stderr);
  expect(text.trimEnd().split('\n')).toEqual([expect.stringMatching(/typeorm 0\.3\.7/), expect.stringMatching(/jest 27\.5\.1/)]);
});
