import { describe, expect, it } from 'vitest';
import { dispatchTarget, isDispatcher, isInnerCall, parentOf } from './dispatch.js';

describe('Tool Search’s dispatchers', () => {
  it('are tool_call, tool_search, tool_describe and tool_search_code, and no other tool', () => {
    for (const t of ['tool_call', 'tool_search', 'tool_describe', 'tool_search_code']) expect(isDispatcher(t)).toBe(true);
    for (const t of ['read', 'exec', 'counting__read', 'Tool_Call', 'tool_calls']) expect(isDispatcher(t)).toBe(false);
  });

  it('a tool_call stands for the tool its id names, by catalog id or by name, with its arguments', () => {
    expect(dispatchTarget({ id: 'counting__read', args: { path: 'a.txt' } })).toEqual({ toolName: 'counting__read', args: { path: 'a.txt' } });
    expect(dispatchTarget({ id: ' mcp:counting:counting__read ', args: { path: 'a.txt' } })).toEqual({ toolName: 'counting__read', args: { path: 'a.txt' } });
    expect(dispatchTarget({ id: 'openclaw:core:web_fetch' })).toEqual({ toolName: 'web_fetch', args: {} });
    for (const bad of [undefined, null, 'read', {}, { id: 7 }, { id: ['read'] }]) expect(dispatchTarget(bad)).toBeUndefined();
  });

  it('finds the dispatcher call an inner call belongs to by the id OpenClaw gives it', () => {
    expect(isInnerCall('tool_search_code:call_2_2:counting__read:2')).toBe(true);
    expect(isInnerCall('call_2_2')).toBe(false);
    expect(parentOf('tool_search_code:call_2_2:counting__read:2', ['call_1_1', 'call_2_2'])).toBe('call_2_2');
    // OpenClaw writes the outer id sanitised: other characters become `_`.
    expect(parentOf('tool_search_code:call_a_b_:counting__read:7', ['call a/b!'])).toBe('call a/b!');
    // The longest outer id wins where one is a prefix of another.
    expect(parentOf('tool_search_code:call_1:1:x:3', ['call_1', 'call_1:1'])).toBe('call_1:1');
    expect(parentOf('tool_search_code:call_9:x:1', ['call_1'])).toBeUndefined();
  });
});
