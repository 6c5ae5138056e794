/** The marker a database of ours carries. */
import { describe, expect, it } from 'vitest';
import { decodeMarker, encodeMarker, newMarker } from '../../src/engines/marker.js';

describe('markers', () => {
  it('round-trip, and anything else is not ours', () => {
    const m = newMarker('database', { run: 'r1' });
    expect(decodeMarker(encodeMarker(m))).toEqual(m);
    expect(decodeMarker('my production database')).toBeNull();
    expect(decodeMarker('fast-test-db {"tool":"other"}')).toBeNull();
    expect(decodeMarker(null)).toBeNull();
  });
});
