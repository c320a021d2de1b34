// The adapter says once when kafkajs runs without loopguard's patches (patches.ts).
import { describe, expect, it } from 'vitest';
import type { Logger } from '../../logger.js';
import { warnIfUnpatched } from './index.js';

function recorder(): { log: Logger; warnings: string[] } {
  const warnings: string[] = [];
  const log = { warn: (_o: unknown, msg: string) => warnings.push(msg) } as unknown as Logger;
  return { log, warnings };
}

describe('warnIfUnpatched', () => {
  it('says nothing when the patches are in place', () => {
    const r = recorder();
    warnIfUnpatched(r.log, true);
    expect(r.warnings).toEqual([]);
  });

  it('warns once per process when they are not', () => {
    const r = recorder();
    warnIfUnpatched(r.log, false);
    warnIfUnpatched(r.log, false);
    expect(r.warnings).toHaveLength(1);
    expect(r.warnings[0]).toMatch(/without loopguard's patches for kafkajs 2\.2\.4.*aborted transaction/);
  });
});
