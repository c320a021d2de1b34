// V8 heap sizing for replay, set from inside the process with flags V8 reads at run time, so
// users type nothing and only this process is touched. Measured in bench/README.md (issue 11).
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';

export interface HeapControls {
  readonly setFlags: (flags: string) => void;
  /** Current size of the young generation (both semi-spaces), bytes. */
  readonly youngBytes: () => number;
  /** A monotonic clock, ms (how often flags are set again; never decisions). */
  readonly now: () => number;
}

const v8Controls: HeapControls = {
  setFlags: setFlagsFromString,
  youngBytes: () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0,
  now: () => performance.now(),
};

/** The young generation stops growing at this size (2 x 4 MB semi-spaces; V8's default top is 2 x 16). */
export const YOUNG_CAP_BYTES = 8 << 20;
const CHECK_EVERY_MS = 10;

/**
 * Replay's live heap is small and flat (the runs' states, ~30 MB for 2,000 full runs) while it
 * allocates and promotes garbage fast (every event makes a new immutable state that dies old):
 * V8 sized old space at up to 4x the live heap, so max RSS grew with the length of the input
 * though nothing kept grows. Growth factor 1.5 keeps old space near 1.5x the live heap.
 *
 * The young generation grows to 2 x 16 MB whatever the input; replay runs as fast with 2 x 4 MB
 * (an event's garbage dies within the event) and 20 MB less RSS. V8 fixes its largest size at
 * start-up but reads the growth factor at every growth, so once it reaches the cap it stops.
 * (Stopping it at the 2 x 1 MB it starts with cost about half again in time: states promoted
 * before they die.)
 */
export function tuneReplayHeap(v8: HeapControls = v8Controls): void {
  controls = v8;
  flags = ['--heap-growing-percent=50'];
  lastSet = Number.NEGATIVE_INFINITY;
  if (holdReplayHeap()) return;
  const check = setInterval(() => {
    if (holdReplayHeap()) clearInterval(check);
  }, CHECK_EVERY_MS);
  check.unref();
}

/** Set by tuneReplayHeap (undefined: never tuned), and the flags it has set so far. */
let controls: HeapControls | undefined;
let flags: string[] = [];
/** When the flags were last set (controls.now()). */
let lastSet = Number.NEGATIVE_INFINITY;

/**
 * Sets the flags again, and stops the young generation once it is at the cap; true once it is
 * stopped. Called by a timer, and by what loops without giving timers a turn (the fold waiting on
 * parse workers). Setting them again is needed: a worker thread starting sets V8's flags back to
 * the command line's (measured: the young generation grew to 2 x 16 MB again).
 */
export function holdReplayHeap(): boolean {
  if (controls === undefined) return true;
  // Setting a flag costs a few µs and the fold calls this several times per chunk (~100 ms of
  // the folding thread in a raw 200k replay, profiled): at most once per CHECK_EVERY_MS still
  // undoes a worker's reset within that time.
  const now = controls.now();
  if (now - lastSet >= CHECK_EVERY_MS) {
    lastSet = now;
    for (const f of flags) controls.setFlags(f);
  }
  if (flags.length > 1) return true;
  if (controls.youngBytes() < YOUNG_CAP_BYTES) return false;
  flags.push('--semi-space-growth-factor=1');
  controls.setFlags(flags[1]!);
  return true;
}

/**
 * Sets the flags tuneReplayHeap changed back to V8's defaults (what the command line gave, unless
 * it set them itself): the CLI's code cache is written at exit, and V8 refuses a cache made under
 * flags other than the next start's (cli/bin.ts).
 */
export function restoreV8Flags(): void {
  const tuned = controls;
  if (tuned === undefined) return;
  controls = undefined;
  tuned.setFlags('--heap-growing-percent=0');
  tuned.setFlags('--semi-space-growth-factor=2');
}
