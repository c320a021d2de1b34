// How a parse worker's results cross to the folding thread. Structured clone writes every key of
// every event and the reader defines them one at a time: on raw input it cost about 3 µs per
// event on each side. Here the results travel as one flat array of values, each object's keys
// as the number of a shape sent once: the reader builds each object with its keys in the same
// order, so the fold sees the same values, keys and key order as from a parse on its own thread.
import type { ParsedLine } from './parse.js';

/** Entries in the flat array before a line's values: what the line is. */
const BLANK = -1;
const INVALID = -2;

/**
 * An object whose values are flattened: a plain object (prototype Object.prototype), what
 * validation builds. Its own enumerable string keys are what travel, as with structured clone.
 * Anything else is passed whole, for structured clone to copy, with structured clone's
 * losses (an object without a prototype, say, arrives with Object.prototype); validation
 * builds no such values, so no event loses anything the serial path keeps.
 */
function flattenable(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === Object.prototype;
}

/** A shape: the keys of an object in order, and for each whether its value is itself flattened. */
interface Shape {
  readonly keys: readonly string[];
  readonly nested: readonly boolean[];
}

/** Shapes a packer numbers at most; objects of any other shape are passed whole. */
const MAX_SHAPES = 64;
/** Objects nested deeper than this in an event are passed whole (validated events nest two deep). */
const MAX_FLAT_DEPTH = 8;
/** In place of a shape number: the value that follows is passed whole. */
const WHOLE = -1;

interface Numbered extends Shape {
  readonly id: number;
}

/** The packing side (a parse worker): numbers the shapes it has seen. */
export class Packer {
  private readonly shapes: Numbered[] = [];
  /** Shapes first seen since the last `pack`, to be sent with it. */
  private fresh: Array<readonly [id: number, keys: readonly string[], nested: readonly boolean[]]> = [];

  pack(lines: readonly ParsedLine[]): Packed {
    const values: unknown[] = [];
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!;
      if (line === null) values.push(BLANK);
      else if (!line.ok) values.push(INVALID, line.reason);
      else {
        values.push(line.node);
        this.value(line.event, values, 0);
      }
    }
    const shapes = this.fresh;
    this.fresh = [];
    return { lines: lines.length, values, shapes };
  }

  /** Writes `v`: a shape number and its values when it is an object that flattens, else WHOLE and `v`. */
  private value(v: unknown, out: unknown[], depth: number): void {
    if (!flattenable(v) || depth > MAX_FLAT_DEPTH) {
      out.push(WHOLE, v);
      return;
    }
    const keys = Object.keys(v);
    const values = Object.values(v);
    const shape = this.shapeOf(keys, values);
    if (shape === undefined) {
      out.push(WHOLE, v);
      return;
    }
    out.push(shape.id);
    const { nested } = shape;
    for (let i = 0; i < values.length; i++) {
      if (nested[i]) this.value(values[i], out, depth + 1);
      else out.push(values[i]);
    }
  }

  private shapeOf(keys: readonly string[], values: readonly unknown[]): Numbered | undefined {
    next: for (let s = 0; s < this.shapes.length; s++) {
      const shape = this.shapes[s]!;
      if (shape.keys.length !== keys.length) continue;
      for (let i = 0; i < keys.length; i++) if (shape.keys[i] !== keys[i] || shape.nested[i] !== flattenable(values[i])) continue next;
      return shape;
    }
    // An own "__proto__" would set the rebuilt object's prototype: such an object goes whole.
    if (this.shapes.length >= MAX_SHAPES || keys.includes('__proto__')) return undefined;
    const shape: Numbered = { id: this.shapes.length, keys, nested: values.map(flattenable) };
    this.shapes.push(shape);
    this.fresh.push([shape.id, shape.keys, shape.nested]);
    return shape;
  }
}

export interface Packed {
  readonly lines: number;
  readonly values: readonly unknown[];
  readonly shapes: ReadonlyArray<readonly [id: number, keys: readonly string[], nested: readonly boolean[]]>;
}

/** The reading side (the folding thread): one per worker, as shape numbers are a worker's own. */
export class Unpacker {
  private readonly shapes: Shape[] = [];
  private at = 0;
  private values: readonly unknown[] = [];

  unpack(p: Packed): ParsedLine[] {
    for (const [id, keys, nested] of p.shapes) this.shapes[id] = { keys, nested };
    this.values = p.values;
    this.at = 0;
    const out = new Array<ParsedLine>(p.lines);
    for (let i = 0; i < p.lines; i++) {
      const tag = this.values[this.at++] as number;
      if (tag === BLANK) out[i] = null;
      else if (tag === INVALID) out[i] = { ok: false, reason: this.values[this.at++] as string };
      else out[i] = { ok: true, node: tag, event: this.value() };
    }
    this.values = [];
    return out;
  }

  private value(): unknown {
    const id = this.values[this.at++] as number;
    if (id === WHOLE) return this.values[this.at++];
    const { keys, nested } = this.shapes[id]!;
    const o: Record<string, unknown> = {};
    for (let i = 0; i < keys.length; i++) o[keys[i]!] = nested[i] ? this.value() : this.values[this.at++];
    return o;
  }
}
