import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { emptyIds, idEntries, lookupId, mapIds, rememberId, type IdView } from './idMemory.js';

describe('mapIds', () => {
  it('maps exactly the entries idEntries yields, in its order, on every view of a history with forks', () => {
    // Each step remembers an id on the newest view or on an older one (a fork), so views see
    // in-place stores, copied ones and compacted ones.
    const step = fc.record({ id: fc.integer({ min: 0, max: 12 }), from: fc.nat() });
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.array(step, { maxLength: 60 }), (capacity, steps) => {
        const views: Array<IdView<number>> = [emptyIds<number>(capacity)];
        steps.forEach(({ id, from }, i) => {
          const base = views[from % 3 === 0 ? from % views.length : views.length - 1]!;
          if (lookupId(base, `e${id}`).found) return;
          views.push(rememberId(base, `e${id}`, i));
        });
        for (const v of views) expect(mapIds(v, (id, value) => [id, value])).toEqual([...idEntries(v)]);
      }),
    );
  });
});
