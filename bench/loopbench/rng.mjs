// A seeded generator (mulberry32) and the draws LoopBench's corpus makes with it: the same seed
// gives the same corpus, byte for byte, on every machine.

export function rng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo, hi) => lo + Math.floor(next() * (hi - lo + 1));
  return {
    next,
    /** A whole number in [lo, hi]. */
    int,
    /** One element of `xs`. */
    pick: (xs) => xs[Math.floor(next() * xs.length)],
    /** True with probability p. */
    chance: (p) => next() < p,
    /** `n` lowercase hex digits. */
    hex: (n) => Array.from({ length: n }, () => '0123456789abcdef'[Math.floor(next() * 16)]).join(''),
    /** A version-4-shaped UUID. */
    uuid() {
      const h = this.hex(32);
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20)}`;
    },
    /** A word of the given length range. */
    word: (lo = 3, hi = 9) => Array.from({ length: int(lo, hi) }, () => 'abcdefghijklmnopqrstuvwxyz'[Math.floor(next() * 26)]).join(''),
  };
}

/** A stable 32-bit seed from a string (FNV-1a), so each trace's draws do not depend on the others'. */
export function seedOf(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
