import { InvalidArgumentError, Option } from 'commander';

export const configOption = () => new Option('-c, --config <file>', 'JSON or JSON5 config (a whole gateway config works as is)').env('LOOPGUARD_CONFIG');

/** An option parser for a count or size: anything but a positive integer is refused, naming the option. */
export function positiveInt(v: string, name: string): number {
  const n = Number(v);
  if (v.trim() === '' || !Number.isSafeInteger(n) || n <= 0) throw new InvalidArgumentError(`${name} must be a positive integer, got ${v}`);
  return n;
}

/** An option parser for an integer of at least `min`; `why` says where the floor comes from. */
export function intAtLeast(min: number, why: string) {
  return (v: string, name: string): number => {
    const n = positiveInt(v, name);
    if (n < min) throw new InvalidArgumentError(`${name} must be at least ${min}, got ${v}: ${why}`);
    return n;
  };
}
