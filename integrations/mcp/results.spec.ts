import { describe, expect, it } from 'vitest';
import { hashOutcome, hashValue } from '../../processors/toolLoop/hashing.js';
import { blockedResult, commandLine, outcomeOfError, outcomeOfResult, upstreamGoneMessage, withWarning, type ToolResult } from './results.js';

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
  const hashOf = (result: ToolResult) => {
    const o = outcomeOfResult(result);
    return hashOutcome({ toolName: 'read_media_file', result: o.result, error: o.error })?.resultHash;
  };
  const text = (t: string) => ({ type: 'text', text: t });
  const image = (data: string) => ({ type: 'image', data, mimeType: 'image/png' });

  it('is the whole result but _meta and isError, hashed whole though it has `content`', () => {
    const result = { content: [text('a'), image('AA==')], structuredContent: { a: 1 }, _meta: { t: 1 }, isError: false };
    const published = { content: [text('a'), image('AA==')], structuredContent: { a: 1 } };
    expect(outcomeOfResult(result)).toEqual({ result: { value: published } });
    expect(hashOf(result)).toBe(hashValue({ value: published }));
    expect(outcomeOfResult({ content: [text('a')] })).toEqual({ result: { value: { content: [text('a')] } } });
  });
  it('changes with everything a server can change but per-call metadata', () => {
    const base = { content: [text('chart'), image('AA==')] };
    const changed: ToolResult[] = [
      { content: [text('chart'), image('AQ==')] },
      { content: [text('chart'), { type: 'audio', data: 'AA==', mimeType: 'audio/wav' }] },
      { content: [text('chart'), { type: 'resource', resource: { uri: 'file:///a.bin', blob: 'AA==' } }] },
      { content: [text('chart'), { type: 'resource', resource: { uri: 'file:///a.txt', text: 'v2' } }] },
      { content: [text('chart'), { type: 'resource_link', uri: 'file:///b', name: 'b' }] },
      { ...base, structuredContent: { progress: 41 } },
      { ...base, nextCursor: 'later' }, // a field newer than this SDK
      { ...base, isError: true },
    ];
    const hashes = new Set([base, ...changed].map(hashOf));
    expect(hashes.size).toBe(changed.length + 1);
    // _meta, at every level MCP defines it, is per call: it changes nothing.
    const meta = {
      _meta: { requestId: 1 },
      content: [
        { ...text('chart'), _meta: { at: 2 } },
        { ...image('AA=='), _meta: { at: 3 } },
      ],
    };
    expect(hashOf(meta)).toBe(hashOf(base));
    const resource = (meta: object) => ({ content: [{ type: 'resource', resource: { uri: 'u', text: 't', ...meta } }] });
    expect(hashOf(resource({ _meta: { at: 4 } }))).toBe(hashOf(resource({})));
    // A structuredContent's own `_meta` key is the tool's data.
    expect(hashOf({ ...base, structuredContent: { _meta: 1 } })).not.toBe(hashOf({ ...base, structuredContent: { _meta: 2 } }));
  });
  it('is an error carrying the text of a result the server marked isError', () => {
    expect(outcomeOfResult({ isError: true, content: [text('429 Too Many Requests'), text(''), text('retry later')] })).toEqual({
      error: { message: '429 Too Many Requests\nretry later' },
    });
    expect(outcomeOfResult({ isError: true, content: [] })).toEqual({ error: { message: 'the tool reported an error without text' } });
  });
  it('is an error whose text names a hash of what an error result carries beside text', () => {
    const failed = (data: string) => ({ isError: true, content: [text('render failed'), image(data)], _meta: { t: 1 } });
    const message = (r: ToolResult) => (outcomeOfResult(r).error as { message: string }).message;
    expect(message(failed('AA=='))).toBe(`render failed\n[non-text content ${hashValue({ content: [image('AA==')] })}]`);
    expect(hashOf(failed('AA=='))).not.toBe(hashOf(failed('AQ==')));
    expect(message({ isError: true, content: [image('AA==')] })).toMatch(/^\[non-text content [0-9a-f]{64}\]$/);
    expect(message({ isError: true, content: [text('bad')], structuredContent: { code: 7 } })).toMatch(/^bad\n\[non-text content [0-9a-f]{64}\]$/);
    expect(message({ isError: true, content: [text('bad')], _meta: { t: 1 } })).toBe('bad');
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
