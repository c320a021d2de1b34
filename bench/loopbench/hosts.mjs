// Tool results in the shapes real hosts produce: MCP `tools/call` results (content blocks,
// structuredContent, isError), OpenClaw tool results (`content` + `details`: exec, process,
// write, message), and framework tools' own return values (plain JSON). LoopBench's traces carry
// these; each guard turns them into what its integration would publish.

export const HOSTS = /** @type {const} */ (['mcp', 'openclaw', 'framework']);

// ---- MCP -------------------------------------------------------------------------------------
export const mcp = {
  text: (text) => ({ content: [{ type: 'text', text }] }),
  error: (text) => ({ isError: true, content: [{ type: 'text', text }] }),
  image: (data, mimeType = 'image/png') => ({ content: [{ type: 'image', data, mimeType }] }),
  audio: (data, mimeType = 'audio/wav') => ({ content: [{ type: 'audio', data, mimeType }] }),
  resource: (uri, text) => ({ content: [{ type: 'resource', resource: { uri, mimeType: 'text/plain', text } }] }),
  blob: (uri, blob, mimeType = 'application/octet-stream') => ({ content: [{ type: 'resource', resource: { uri, mimeType, blob } }] }),
  link: (uri, name) => ({ content: [{ type: 'resource_link', uri, name }] }),
  structured: (text, structuredContent) => ({ content: [{ type: 'text', text }], structuredContent }),
};

// ---- OpenClaw --------------------------------------------------------------------------------
export const openclaw = {
  read: (text) => ({ content: [{ type: 'text', text }], details: {} }),
  exec: ({ status, exitCode, output, durationMs, pid, cwd = '/workspace' }) => ({
    content: [{ type: 'text', text: output }],
    details: { status, exitCode, aggregated: output, durationMs, pid, cwd, sessionId: `exec-${pid}` },
  }),
  poll: ({ status, aggregated, exitCode = null }) => ({
    content: [{ type: 'text', text: aggregated.split('\n').slice(-5).join('\n') }],
    details: { status, aggregated, exitCode, exitSignal: null },
  }),
  write: ({ path, changed, bytes }) => ({
    content: [{ type: 'text', text: changed ? `Wrote ${bytes} bytes to ${path}` : `${path} is unchanged` }],
    details: { path, changed, bytes },
  }),
  send: ({ messageId, ts, channel, to }) => ({ content: [{ type: 'text', text: `Sent to ${to}` }], details: { ok: true, channel, to, messageId, ts } }),
};

/** Tokens a result adds to the model's context, roughly: four characters a token. */
export function tokensOf(value) {
  return Math.max(1, Math.ceil(JSON.stringify(value).length / 4));
}

/** Base64 of `n` pseudo-random bytes from `r` (a stand-in for image or audio data). */
export function bytes64(r, n) {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = Math.floor(r.next() * 256);
  return b.toString('base64');
}

/** An ISO date-time `ms` after the epoch. */
export const iso = (ms) => new Date(ms).toISOString();
