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

describe('rememberId', () => {
  // A model: each view is the list of ids of its own lineage; an exact view sees exactly the
  // newest `capacity` of them. A new view of an exact one is exact, and remembering an id never makes the
  // view it came from inexact (the rollback guarantee), whether the step extended the store in
  // place, forked from an older view, or compacted the store.
  it('extends the newest view’s store in place (each id costs O(1)) and copies for a fork of an older view', () => {
    const v1 = rememberId(emptyIds<number>(4), 'a', 1);
    const v2 = rememberId(v1, 'b', 2);
    const v3 = rememberId(v2, 'c', 3);
    expect(v2.store).toBe(v1.store);
    expect(v3.store).toBe(v1.store);
    const fork = rememberId(v2, 'd', 4);
    expect(fork.store).not.toBe(v1.store);
    expect([...idEntries(fork)].map(([id]) => id)).toEqual(['a', 'b', 'd']);
  });
  it('keeps the new view, and the one it came from if it was, seeing exactly their newest `capacity` ids', () => {
    const step = fc.record({ id: fc.integer({ min: 0, max: 12 }), from: fc.nat() });
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.array(step, { maxLength: 80 }), (capacity, steps) => {
        type Modelled = { view: IdView<number>; lineage: string[] };
        const views: Modelled[] = [{ view: emptyIds<number>(capacity), lineage: [] }];
        const seen = ({ view, lineage }: Modelled) => ({ entries: [...idEntries(view)].map(([id]) => id), found: [...new Set(lineage)].filter((id) => lookupId(view, id).found) });
        const model = ({ lineage }: Modelled) => ({ entries: lineage.slice(-capacity), found: [...new Set(lineage)].filter((id) => lineage.slice(-capacity).includes(id)) });
        const isExact = (v: Modelled) => JSON.stringify(seen(v)) === JSON.stringify(model(v));
        steps.forEach(({ id, from }, i) => {
          const base = views[from % 2 === 0 ? from % views.length : views.length - 1]!;
          const key = `e${id}`;
          if (lookupId(base.view, key).found) return;
          const baseWasExact = isExact(base);
          const next = { view: rememberId(base.view, key, i), lineage: [...base.lineage.filter((x) => x !== key), key] };
          views.push(next);
          // A fork of a view already out of date (past `capacity` newer ids) is out of date too.
          if (!baseWasExact) return;
          expect(seen(next)).toEqual(model(next));
          expect(seen(base)).toEqual(model(base));
        });
      }),
      { numRuns: 1000 },
    );
  });
});
