// A trace as the events its integrations would publish if nothing were blocked (the open-loop
// form, for `loopguard replay` and for reading): docs/behaviour.md §1, in event-time order.
import { published } from './guards/loopguard.mjs';

export function eventsOf(trace) {
  const out = [];
  const ids = (s) => ({ sessionKey: trace.session, runId: s.runId });
  for (const s of trace.steps) {
    if (s.kind === 'call') {
      const call = { ...ids(s), toolCallId: `${trace.id}/c${s.index}`, toolName: s.toolName, args: s.args };
      out.push({ type: 'tool_call', ts: s.ts, ...call, ...(s.turnId === undefined ? {} : { turnId: s.turnId }) });
      out.push({ type: 'tool_outcome', ts: s.doneTs, ...call, ...published(s) });
    } else if (s.kind === 'compaction' || s.kind === 'run_end') out.push({ type: s.kind, ts: s.ts, ...ids(s) });
    else if (s.kind === 'bot') {
      const { channel, accountId, conversationId, senderId, receiverId } = s;
      out.push({ type: 'bot_message', ts: s.ts, channel, accountId, conversationId, senderId, receiverId, eventId: `${trace.id}/m${s.index}` });
    } else if (s.kind === 'human') {
      const { channel, accountId, conversationId, senderId } = s;
      out.push({ type: 'human_message', ts: s.ts, channel, accountId, conversationId, senderId });
    }
  }
  return out.sort((a, b) => a.ts - b.ts);
}
