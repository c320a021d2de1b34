import { ToolMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { hashOutcome } from '../../sdk/index.js';
import { outcomeOf } from './outcome.js';

const message = (fields: Partial<ConstructorParameters<typeof ToolMessage>[0] & object>) => new ToolMessage({ content: '', tool_call_id: 'c1', ...fields } as never);
const hashOf = (m: ToolMessage) => hashOutcome({ toolName: 'deploymentStatus', ...outcomeOf(m) })?.resultHash;

describe('the outcome of a LangChain tool call', () => {
  it('is the content of its ToolMessage: the JSON LangChain makes of an object output, or its content blocks', () => {
    const poll = (progress: number) => message({ content: JSON.stringify({ state: 'rolling', progress }) });
    expect(outcomeOf(poll(40))).toEqual({ result: '{"state":"rolling","progress":40}' });
    expect(hashOf(poll(40))).not.toBe(hashOf(poll(50)));
    const blocks = (url: string) =>
      message({
        content: [
          { type: 'text', text: 'chart' },
          { type: 'image_url', image_url: { url } },
        ],
      });
    expect(hashOf(blocks('data:image/png;base64,AA=='))).not.toBe(hashOf(blocks('data:image/png;base64,AQ==')));
  });
  it('adds the artifact a content_and_artifact tool returns beside its content', () => {
    const withArtifact = (rows: number) => message({ content: 'query ran', artifact: { rows } });
    expect(outcomeOf(withArtifact(3))).toEqual({ result: { value: { content: 'query ran', artifact: { rows: 3 } } } });
    expect(hashOf(withArtifact(3))).not.toBe(hashOf(withArtifact(4)));
    expect(hashOf(withArtifact(3))).toBe(hashOf(withArtifact(3)));
  });
  it('is an error carrying the text of a message whose status is error', () => {
    expect(outcomeOf(message({ content: 'Error: timeout', status: 'error' }))).toEqual({ error: 'Error: timeout' });
  });
});
