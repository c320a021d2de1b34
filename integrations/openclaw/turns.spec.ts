import { describe, expect, it } from 'vitest';
import { callsOf, Turns, type PlannedTurn } from './turns.js';

const assistant = (...content: object[]) => ({ role: 'assistant', content, responseId: 'r1' });
const toolCall = (id: string, name: string, args: unknown) => ({ type: 'toolCall', id, name, arguments: args });

describe('the calls of a model turn', () => {
  it('are the assistant message’s tool calls in its order, a tool_call as its target, lookups left out', () => {
    const m = assistant(
      { type: 'text', text: 'Reading both.' },
      toolCall('c1', 'read', { path: 'a' }),
      toolCall('c2', 'tool_search', { query: 'issues' }),
      toolCall('c3', 'tool_call', { id: 'mcp:github:github__create_issue', args: { title: 't' } }),
      toolCall('c4', 'tool_describe', { id: 'x' }),
      toolCall('c5', 'exec', { command: 'ls' }),
    );
    expect(callsOf(m)).toEqual([
      { toolCallId: 'c1', toolName: 'read', args: { path: 'a' } },
      { toolCallId: 'c3', toolName: 'github__create_issue', args: { title: 't' } },
      { toolCallId: 'c5', toolName: 'exec', args: { command: 'ls' } },
    ]);
  });

  it('are none for any other message, or blocks that are not well-formed calls', () => {
    expect(callsOf({ role: 'user', content: [toolCall('c1', 'read', {})] })).toEqual([]);
    expect(callsOf({ role: 'toolResult', toolCallId: 'c1', content: [] })).toEqual([]);
    expect(callsOf(assistant({ type: 'text', text: 'done' }))).toEqual([]);
    expect(callsOf(assistant(toolCall('c1', 'tool_call', { id: 3 }), { type: 'toolCall', id: 'c2' }, { type: 'toolCall', name: 'read' }))).toEqual([]);
    for (const v of [undefined, null, 'assistant', { role: 'assistant', content: 'text' }]) expect(callsOf(v)).toEqual([]);
  });
});

describe('the turns planned', () => {
  const turn = (turnId: string, ...ids: string[]): PlannedTurn<string> => ({ turnId, calls: ids.map((toolCallId) => ({ toolCallId, toolName: 'read', args: {} })) });
  it('hold the newest turn of each session, found by any of its calls', () => {
    const turns = new Turns<string>();
    turns.plan('s1', turn('t1', 'c1', 'c2'));
    turns.plan('s2', turn('t2', 'c3'));
    expect(turns.of('s1', 'c2')?.turnId).toBe('t1');
    expect(turns.of('s1', 'c3')).toBeUndefined();
    turns.plan('s1', turn('t3', 'c4'));
    expect(turns.of('s1', 'c1')).toBeUndefined();
    expect(turns.of('s1', 'c4')?.turnId).toBe('t3');
    turns.forget('s1');
    expect(turns.of('s1', 'c4')).toBeUndefined();
    expect(turns.of('s2', 'c3')?.turnId).toBe('t2');
  });
  it('keep the turn of a message written again, with its decisions', () => {
    const turns = new Turns<string>();
    const first = turn('t1', 'c1', 'c2');
    turns.plan('s1', first);
    first.decided = Promise.resolve(new Map([['c1', 'allow']]));
    turns.plan('s1', turn('t2', 'c1', 'c2'));
    expect(turns.of('s1', 'c1')).toBe(first);
    turns.plan('s1', turn('t3', 'c1'));
    expect(turns.of('s1', 'c1')?.turnId).toBe('t3');
  });
  it('forget the least recently planned session beyond their bound', () => {
    const turns = new Turns<string>(2);
    turns.plan('s1', turn('t1', 'c1'));
    turns.plan('s2', turn('t2', 'c2'));
    turns.plan('s1', turn('t3', 'c3'));
    turns.plan('s3', turn('t4', 'c4'));
    expect(turns.of('s2', 'c2')).toBeUndefined();
    expect(turns.of('s1', 'c3')?.turnId).toBe('t3');
    expect(turns.of('s3', 'c4')?.turnId).toBe('t4');
  });
});
