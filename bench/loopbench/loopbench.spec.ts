// LoopBench's corpus and anchors: the corpus is deterministic and well formed (every event one
// loopguard accepts), each anchor does what its documented rule says, and the scoring follows
// the terms of docs/behaviour.md §6.
import { describe, expect, it } from 'vitest';
import { clawmetry } from './anchors/clawmetry.mjs';
import { doomLoop } from './anchors/doomloop.mjs';
import { langchainLimit } from './anchors/langchain.mjs';
import { microloop } from './anchors/microloop.mjs';
import { openclawAnchor } from './anchors/openclaw.mjs';
import { corpus, FAMILIES } from './corpus.mjs';
import { eventsOf } from './events.mjs';
import { loopguardGuard } from './guards/loopguard.mjs';
import { LOOPGUARD_CONFIGS, rows } from './rows.mjs';
import { scoreTrace, summarise } from './score.mjs';

type Step = Record<string, unknown> & { kind: string; index?: number };
type Trace = { id: string; family: string; kind: 'loop' | 'legit'; label: number | null; session: string; steps: Step[] };

const small = corpus({ perFamily: 3 }) as Trace[];

/** A trace of `n` identical calls (one run), labelled at the second. */
function identical(n: number, { turns = false } = {}): Trace {
  const steps = Array.from({ length: n }, (_, i) => ({
    kind: 'call',
    index: i + 1,
    host: 'framework',
    toolName: 'getWeather',
    args: { city: 'Oslo' },
    outcome: { result: { tempC: 3 } },
    ts: 1_780_000_000_000 + i * 5_000,
    doneTs: 1_780_000_000_000 + i * 5_000 + 100,
    runId: 'r1',
    tokens: 10,
    ...(turns ? { turnId: `t${Math.floor(i / 2)}` } : {}),
  }));
  return { id: 'x-000', family: 'identical', kind: 'loop', label: 2, session: 's1', steps };
}

describe('the corpus', () => {
  it('is the same for the same seed, and another for another seed', () => {
    expect(JSON.stringify(corpus({ perFamily: 2 }))).toBe(JSON.stringify(corpus({ perFamily: 2 })));
    expect(JSON.stringify(corpus({ perFamily: 2, seed: 7 }))).not.toBe(JSON.stringify(corpus({ perFamily: 2 })));
  });

  it('has every family, loops labelled inside their calls and legitimate traces unlabelled', () => {
    expect(new Set(small.map((t) => t.family))).toEqual(new Set(FAMILIES.map((f) => f.name)));
    for (const t of small) {
      const counted = t.steps.filter((s) => s.kind === 'call' || s.kind === 'bot').length;
      if (t.kind === 'loop') expect(t.label! >= 2 && t.label! <= counted, t.id).toBe(true);
      else expect(t.label, t.id).toBeNull();
    }
  });

  it('writes only events loopguard accepts (docs/behaviour.md §1), in event-time order', () => {
    const guard = loopguardGuard('check', { tools: { loopDetection: { enabled: true } } });
    for (const t of small) {
      const events = eventsOf(t);
      expect(events.map((e) => e.ts)).toEqual([...events.map((e) => e.ts)].sort((a, b) => a - b));
      // Scoring pipes every event through the real topology and throws on one it refuses.
      expect(() => scoreTrace(guard, t), t.id).not.toThrow();
    }
  });
});

describe('the anchors do what their documented rules say', () => {
  const actions = (guard: { session(t: Trace): { calls(s: Step[]): Array<{ action: string; abort?: boolean }> } }, t: Trace) => {
    const s = guard.session(t);
    return t.steps.map((step) => s.calls([step])[0]!);
  };

  it('doomLoop blocks the 3rd identical call and ends the run at the 6th; one turn counts once', () => {
    const a = actions(doomLoop, identical(7));
    expect(a.map((d) => d.action)).toEqual(['allow', 'allow', 'block', 'block', 'block', 'block', 'block']);
    expect(a.findIndex((d) => d.abort)).toBe(5);
    const t = identical(6, { turns: true });
    const s = doomLoop.session(t);
    const byTurn = [0, 2, 4].map((i) => s.calls(t.steps.slice(i, i + 2)).map((d: { action: string }) => d.action));
    expect(byTurn).toEqual([
      ['allow', 'allow'],
      ['allow', 'allow'],
      ['block', 'block'],
    ]);
  });

  it('Microloop blocks the 3rd identical call; LangChain the 21st call of a run; ClawMetry alerts at the 20th', () => {
    expect(actions(microloop, identical(4)).map((d) => d.action)).toEqual(['allow', 'allow', 'block', 'block']);
    expect(
      actions(langchainLimit, identical(22))
        .map((d) => d.action)
        .lastIndexOf('allow'),
    ).toBe(19);
    expect(
      actions(clawmetry, identical(25))
        .map((d, i) => (d.action === 'warn' ? i + 1 : 0))
        .filter(Boolean),
    ).toEqual([20]);
  });
});

describe('scoring (docs/behaviour.md §6)', () => {
  it('counts the calls run from the label to the stop, identical calls of one turn once', () => {
    const [r] = [scoreTrace(microloop, identical(10))];
    expect(r).toMatchObject({ stoppedAt: 3, wasted: 1, blocked: 1, calls: 3 });
    const turns = scoreTrace(doomLoop, { ...identical(8, { turns: true }), label: 3 });
    expect(turns).toMatchObject({ stoppedAt: 5, wasted: 1 });
    expect(summarise([r]).wastedP95).toBe(1);
  });

  it('takes every block of a legitimate trace for a false block', () => {
    const legit = { ...identical(25), kind: 'legit' as const, label: null };
    const r = scoreTrace(langchainLimit, legit);
    expect(r).toMatchObject({ blocked: 5, calls: 25 });
    expect(summarise([r])).toMatchObject({ falseBlockTraces: 100, falseBlockCalls: 20 });
  });
});

describe('the early preset on the full corpus (docs/behaviour.md §7)', () => {
  type Summary = ReturnType<typeof summarise>;
  type Guard = ReturnType<typeof rows>[number];
  // Scored once, on first use (not while the file is collected): about a second for the corpus.
  let cached: { full: Trace[]; early: ReturnType<typeof scoreTrace>[] } | undefined;
  const run = () => {
    if (cached !== undefined) return cached;
    const full = corpus() as Trace[];
    const guard = byName('loopguard early');
    return (cached = { full, early: full.map((t) => scoreTrace(guard, t)) });
  };
  const byName = (name: string) => rows().find((r: Guard) => r.name === name)!;
  const scored = (guard: Guard, traces: Trace[] = run().full) => traces.map((t) => scoreTrace(guard, t));
  const family = (name: string) => summarise(run().early.filter((x) => x.family === name)) as Summary;
  const loops = FAMILIES.filter((f) => f.kind === 'loop').map((f) => f.name);
  const legit = FAMILIES.filter((f) => f.kind === 'legit').map((f) => f.name);

  it('runs the example config as it is, 50 traces of every family', () => {
    expect(LOOPGUARD_CONFIGS.early).toBeInstanceOf(URL);
    expect(run().full).toHaveLength(FAMILIES.length * 50);
  });

  it.each(loops)('stops every loop of %s, wasting at most 2 calls (p95)', (name) => {
    expect(family(name)).toMatchObject({ stopped: 100 });
    expect(family(name).wastedP95).toBeLessThanOrEqual(2);
  });

  it.each(legit)('never blocks legitimate %s work', (name) => {
    expect(family(name)).toMatchObject({ falseBlockTraces: 0, falseBlockCalls: 0 });
  });

  it('wastes at most 2 calls at p95 in all, and warns on at most 1 % of legitimate calls', () => {
    const all = summarise(run().early) as Summary;
    expect(all.wastedP95).toBeLessThanOrEqual(2);
    expect(all.falseWarnCalls).toBeLessThanOrEqual(1);
  });

  it('leaves no anchor row better on any column', () => {
    const all = summarise(run().early) as Summary;
    for (const anchor of [openclawAnchor, doomLoop, microloop, langchainLimit, clawmetry]) {
      const a = summarise(scored(anchor as unknown as Guard)) as Summary;
      const higherIsBetter = { stopped: [all.stopped, a.stopped] };
      const lowerIsBetter = {
        wastedMedian: [all.wastedMedian, a.wastedMedian],
        wastedP95: [all.wastedP95, a.wastedP95],
        falseBlockTraces: [all.falseBlockTraces, a.falseBlockTraces],
        falseBlockCalls: [all.falseBlockCalls, a.falseBlockCalls],
        falseWarnTraces: [all.falseWarnTraces, a.falseWarnTraces],
        falseWarnCalls: [all.falseWarnCalls, a.falseWarnCalls],
      };
      for (const [column, [ours, theirs]] of Object.entries(higherIsBetter)) expect(ours!, `${anchor.name}: ${column}`).toBeGreaterThanOrEqual(theirs!);
      for (const [column, [ours, theirs]] of Object.entries(lowerIsBetter)) expect(ours!, `${anchor.name}: ${column}`).toBeLessThanOrEqual(theirs!);
    }
  });

  it('leaves the default rules no false block where results changed: non-text progress and plain JSON', () => {
    const traces = run().full.filter((t) => t.family === 'nontext-progress' || t.family === 'json-progress');
    expect(summarise(scored(byName('loopguard default'), traces))).toMatchObject({ falseBlockTraces: 0, falseBlockCalls: 0 });
  });
});
