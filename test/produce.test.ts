// `loopguard produce` names the line of an event it cannot publish, in one line, with no stack.
import { writeFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { lg, lgOk, world, writeEvents } from './helpers/harness.js';

const good = '{"type":"tool_call","ts":1,"runId":"r","toolName":"read","args":{}}';
const nested = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

describe('loopguard produce', () => {
  const w = world('produce-errors');
  beforeAll(() => lgOk(['topics', 'create', '--config', w.configFile]));

  it.each([
    ['a ts that is not an integer', `{"type":"tool_call","ts":1.5,"runId":"r","toolName":"read","args":{}}`, /^loopguard: line 2: ts: /m],
    ['a ts out of range', `{"type":"tool_call","ts":-1,"runId":"r","toolName":"read","args":{}}`, /^loopguard: line 2: ts: /m],
    ['args nested too deep to hash', `{"type":"tool_call","ts":1,"runId":"r","toolName":"read","args":${nested(600)}}`, /^loopguard: line 2: args: nests deeper than 512 levels/m],
    // Only a result's status fields are hashed, so this validates; it is too deep to encode.
    ['a result nested too deep to encode', `{"type":"tool_outcome","ts":1,"runId":"r","toolName":"read","args":{},"result":${nested(20_000)}}`, /^loopguard: line 2: /m],
  ])('names the line of %s', async (what, bad, pattern) => {
    const file = writeEvents(`${w.name}-${what.replace(/\W+/g, '-')}`, []);
    writeFileSync(file, [good, bad, good].join('\n') + '\n');
    const r = lg(['produce', '--config', w.configFile, file]);
    expect(await r.exited()).toBe(1);
    const output = r.output();
    expect(output).toMatch(pattern);
    expect(output).not.toMatch(/^\s+at /m);
    expect(output).not.toMatch(/^\w*Error\b/m);
  });
});
