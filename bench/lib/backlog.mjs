// What the Kafka benches fold (bench/runtime.mjs on a broker, bench/fold-path.mjs without one):
// a world's config and the throughput backlog's tool calls, one definition for both.

/** The raw config of a bench world named `name`: tool-loop detection on, topics and group of its own. */
export function worldConfig(name, partitions, loopguard = {}) {
  return {
    tools: { loopDetection: { enabled: true } },
    loopguard: {
      topics: {
        toolEvents: `${name}.tool`,
        channelEvents: `${name}.chan`,
        verdicts: `${name}.verdicts`,
        deadLetter: `${name}.dlq`,
        changelogPrefix: `${name}.`,
        partitions,
      },
      consumer: { groupId: `${name}-g` },
      ...loopguard,
    },
  };
}

/** The i-th pre-hashed tool call of the throughput backlog: 2,000 runs, a quarter of them repeating one call. */
export function hashedCall(i, ts) {
  const r = i % 2000;
  return {
    type: 'tool_call',
    ts,
    sessionKey: `s${r}`,
    runId: `run-${r}`,
    toolCallId: `c${i}`,
    toolName: 'read',
    argsHash: `read:${(r % 4 === 0 ? 0 : i).toString(16).padStart(64, '0')}`,
  };
}
