// Deterministic mixed traffic for integration tests: many runs that loop, poll, ping-pong and
// survive compaction, interleaved with bot storms and calm bot exchanges.
const T0 = Date.UTC(2026, 10, 1);

export function mixedTraffic(runs: number, callsPerRun: number, conversations = Math.max(1, Math.floor(runs / 4))): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  let ts = T0;
  for (let i = 0; i < callsPerRun; i++) {
    for (let r = 0; r < runs; r++) {
      const base = { sessionKey: `s${r}`, runId: `run-${r}`, agentId: r % 5 === 0 ? 'strict' : 'main', toolCallId: `r${r}-c${i}` };
      const kind = r % 4;
      const [toolName, args, result] =
        kind === 0
          ? ['read', { path: `/stuck-${r}` }, { content: [{ type: 'text', text: 'same' }] }]
          : kind === 1
            ? ['process', { action: 'poll', sessionId: `p${r}` }, { details: { status: 'running', aggregated: `step ${i}` } }]
            : kind === 2
              ? i % 2
                ? ['grep', { q: `x${r}` }, 'none']
                : ['ls', { dir: `/d${r}` }, 'a b']
              : ['exec', { command: 'make' }, { details: { status: 'failed', exitCode: 1, aggregated: 'error' } }];
      out.push({ type: 'tool_call', ts: (ts += 7), ...base, toolName, args, ...(r % 3 === 0 ? { eventId: `call-${r}-${i}` } : {}) });
      if (kind === 3 && i === 2) out.push({ type: 'compaction', ts: (ts += 7), sessionKey: base.sessionKey, runId: base.runId });
      out.push({ type: 'tool_outcome', ts: (ts += 7), ...base, toolName, args, result });
    }
    for (let c = 0; c < conversations; c++) {
      const storm = c % 2 === 0;
      const n = storm ? 6 : 1;
      for (let k = 0; k < n; k++) {
        const [from, to] = (i + k) % 2 ? ['A', 'B'] : ['B', 'A'];
        out.push({
          type: 'bot_message',
          ts: (ts += 3),
          channel: 'slack',
          accountId: 'T1',
          conversationId: `C${c}`,
          senderId: `${from}${c}`,
          receiverId: `${to}${c}`,
          eventId: `m-${c}-${i}-${k}`,
        });
      }
    }
  }
  return out;
}
