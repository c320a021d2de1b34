// LoopBench's labelled corpus: every family's traces, generated from one seed. The same seed and
// count give the same traces on every machine (bench/loopbench/loopbench.spec.ts holds it).
import { LEGIT } from './legit.mjs';
import { LOOPS } from './loops.mjs';
import { Trace } from './trace.mjs';

export const DEFAULT_SEED = 20261206;
export const DEFAULT_PER_FAMILY = 50;

export const FAMILIES = [
  ...Object.entries(LOOPS).map(([name, f]) => ({ name, kind: 'loop', about: f.about, build: f.build })),
  ...Object.entries(LEGIT).map(([name, f]) => ({ name, kind: 'legit', about: f.about, build: f.build })),
];

/** `perFamily` traces of each family (or of `only`), in family order. */
export function corpus({ seed = DEFAULT_SEED, perFamily = DEFAULT_PER_FAMILY, only } = {}) {
  const traces = [];
  for (const f of FAMILIES) {
    if (only !== undefined && !only.includes(f.name)) continue;
    for (let i = 0; i < perFamily; i++) {
      const t = new Trace({ family: f.name, kind: f.kind, index: i, seed });
      f.build(t);
      if ((t.kind === 'loop') !== (t.label !== null)) throw new Error(`loopbench: ${t.id}: a ${t.kind} trace ${t.label === null ? 'without' : 'with'} a label`);
      traces.push(t.toJSON());
    }
  }
  return traces;
}
