import type { ToolOutputImage } from '@openai/agents';
import { describe, expect, it } from 'vitest';
import { hashOutcome, hashValue } from '../../sdk/index.js';
import { outcomeOf } from './outcome.js';

const hashOf = (output: unknown) => hashOutcome({ toolName: 'deploymentStatus', ...outcomeOf(output) })?.resultHash;

describe('the outcome of an OpenAI Agents SDK function tool', () => {
  it('is its JSON output, hashed whole: a poll that makes progress never hashes the same', () => {
    const poll = (progress: number) => ({ state: 'rolling', progress });
    expect(outcomeOf(poll(40))).toEqual({ result: poll(40) });
    expect(hashOf(poll(40))).toBe(hashValue(poll(40)));
    expect(hashOf(poll(40))).not.toBe(hashOf(poll(50)));
  });
  it('keeps image outputs and text as they are', () => {
    const image = (data: string): ToolOutputImage => ({ type: 'image', image: { data, mediaType: 'image/png' } });
    expect(hashOf(image('AA=='))).not.toBe(hashOf(image('AQ==')));
    expect(hashOf([{ type: 'text', text: 'a' }, image('AA==')])).not.toBe(hashOf([{ type: 'text', text: 'a' }, image('AQ==')]));
    expect(outcomeOf('done')).toEqual({ result: 'done' });
  });
  it('keeps an output shaped like a gateway’s result whole', () => {
    expect(hashOf({ content: 'v1', details: { n: 1 } })).not.toBe(hashOf({ content: 'v2', details: { n: 1 } }));
  });
});
