import { describe, expect, it } from 'vitest';
import { blockedResult, commandLine, outcomeOfError, outcomeOfResult, upstreamGoneMessage, withWarning } from './results.js';

describe('what the client reads', () => {
  it('returns a block as an isError result whose only text is the message', () => {
    expect(blockedResult('[loopguard] Blocked: read repeated 20 times')).toEqual({
      isError: true,
      content: [{ type: 'text', text: '[loopguard] Blocked: read repeated 20 times' }],
    });
  });
  it('adds a warning as the last text block, keeping every other field of the result', () => {
    const result = { content: [{ type: 'image', data: 'AA==', mimeType: 'image/png' }], structuredContent: { n: 1 }, _meta: { trace: 'x' } };
    expect(withWarning(result, 'careful')).toEqual({ ...result, content: [...result.content, { type: 'text', text: 'careful' }] });
    expect(result.content).toHaveLength(1); // the server's result is not changed in place
  });
  it('adds a warning to a result without content', () => {
    expect(withWarning({}, 'careful')).toEqual({ content: [{ type: 'text', text: 'careful' }] });
  });
});

describe('the outcome published', () => {
  it('is the content and structured content of a result, without _meta', () => {
    expect(outcomeOfResult({ content: [{ type: 'text', text: 'a' }], structuredContent: { a: 1 }, _meta: { t: 1 } })).toEqual({
      result: { content: [{ type: 'text', text: 'a' }], structuredContent: { a: 1 } },
    });
    expect(outcomeOfResult({ content: [{ type: 'text', text: 'a' }] })).toEqual({ result: { content: [{ type: 'text', text: 'a' }] } });
  });
  it('is an error carrying the text of a result the server marked isError', () => {
    expect(outcomeOfResult({ isError: true, content: [{ type: 'text', text: '429 Too Many Requests' }, { type: 'image' }, { type: 'text', text: 'retry later' }] })).toEqual({
      error: { message: '429 Too Many Requests\nretry later' },
    });
    expect(outcomeOfResult({ isError: true, content: [] })).toEqual({ error: { message: 'the tool reported an error without text' } });
  });
  it('is an error carrying the message of a JSON-RPC error', () => {
    expect(outcomeOfError(new Error('MCP error -32602: unknown tool'))).toEqual({ error: { message: 'MCP error -32602: unknown tool' } });
    expect(outcomeOfError('boom')).toEqual({ error: { message: 'boom' } });
  });
});

describe('naming the server', () => {
  it('quotes only the words a shell would split', () => {
    expect(commandLine({ command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/home/a b'] })).toBe(
      'npx -y @modelcontextprotocol/server-filesystem "/home/a b"',
    );
  });
  it('says how the server ended', () => {
    const server = { command: 'node', args: ['s.mjs'] };
    expect(upstreamGoneMessage(server, { code: 3, signal: null })).toBe('the MCP server `node s.mjs` exited with code 3');
    expect(upstreamGoneMessage(server, { code: null, signal: 'SIGKILL' })).toBe('the MCP server `node s.mjs` was killed by SIGKILL');
    expect(upstreamGoneMessage(server, undefined)).toBe('the MCP server `node s.mjs` closed its connection');
  });
});
