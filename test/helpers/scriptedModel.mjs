// A scripted OpenAI-compatible Chat Completions server (no dependencies): a model that
// OpenClaw's own agent loop drives. The last user message carries the script of the turn,
// `[[script:[{"tool":"read","args":{"path":"hello.txt"},"times":3}, …]]]`: the model calls
// each step's tool `times` times, one call per request (or `batch` calls per request, asked for
// together in one message), counting the tool results after that message, then answers
// `FINAL: saw N tool results.`. A request that offers no tools (the
// compaction summariser) gets a summary. Every request body is kept, in order.
import http from 'node:http';

const INTERNAL = '<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>';
const textOf = (m) => (typeof m.content === 'string' ? m.content : Array.isArray(m.content) ? m.content.map((p) => p.text ?? '').join('') : '');

/** What the model answers to one request body. */
export function decide(body, reqNo) {
  const msgs = Array.isArray(body.messages) ? body.messages : [];
  if ((body.tools ?? []).length === 0) return { kind: 'text', text: '## Summary\nThe user asked for tool calls; they were made.' };
  let lastUser = -1;
  for (let i = msgs.length - 1; i >= 0; i--) {
    if (msgs[i].role === 'user' && !textOf(msgs[i]).startsWith(INTERNAL)) {
      lastUser = i;
      break;
    }
  }
  const userText = lastUser >= 0 ? textOf(msgs[lastUser]) : '';
  const done = msgs.slice(lastUser + 1).filter((m) => m.role === 'tool').length;
  const m = /\[\[script:(.*?)\]\]\]/s.exec(userText);
  const steps = m ? JSON.parse(m[1] + ']') : [];
  let n = done;
  for (const s of steps) {
    if (n < s.times) {
      const k = Math.min(s.batch ?? 1, s.times - n);
      const calls = Array.from({ length: k }, (_, i) => ({ id: `call_${reqNo}_${done + 1 + i}`, name: s.tool, args: JSON.stringify(s.args) }));
      return { kind: 'tool', calls };
    }
    n -= s.times;
  }
  return { kind: 'text', text: `FINAL: saw ${done} tool results.` };
}

function stream(res, body, d, n) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  const base = { id: `chatcmpl-${n}`, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: body.model ?? 'scripted-1' };
  const chunk = (delta, finish = null) => res.write(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`);
  if (d.kind === 'tool') {
    d.calls.forEach((c, index) => {
      chunk({ ...(index === 0 ? { role: 'assistant', content: null } : {}), tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }] });
      chunk({ tool_calls: [{ index, function: { arguments: c.args } }] });
    });
    chunk({}, 'tool_calls');
  } else {
    chunk({ role: 'assistant', content: '' });
    chunk({ content: d.text });
    chunk({}, 'stop');
  }
  res.write(`data: ${JSON.stringify({ ...base, choices: [], usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 } })}\n\n`);
  res.end('data: [DONE]\n\n');
}

/** Starts the model on a free loopback port. */
export async function startScriptedModel() {
  const requests = [];
  const times = [];
  const answered = [];
  const model = { hold: undefined };
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      if (req.method === 'GET' && /\/models\/?$/.test(req.url)) {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ object: 'list', data: [{ id: 'scripted-1', object: 'model', owned_by: 'test' }] }));
      }
      if (req.method !== 'POST' || !/chat\/completions/.test(req.url)) {
        res.writeHead(404, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ error: { message: `unsupported ${req.method} ${req.url}` } }));
      }
      const body = JSON.parse(raw);
      requests.push(body);
      times.push(Date.now());
      const n = requests.length;
      const d = decide(body, n);
      const held = model.hold?.(body);
      if (held !== undefined) return void held.then(() => answer(res, body, d, n));
      answer(res, body, d, n);
    });
  });
  function answer(res, body, d, n) {
    answered[n - 1] = Date.now();
    if (body.stream) return stream(res, body, d, n);
    const message =
      d.kind === 'tool'
        ? { role: 'assistant', content: null, tool_calls: d.calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.args } })) }
        : { role: 'assistant', content: d.text };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: `chatcmpl-${n}`,
        object: 'chat.completion',
        model: body.model,
        choices: [{ index: 0, message, finish_reason: d.kind === 'tool' ? 'tool_calls' : 'stop' }],
      }),
    );
  }
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: server.address().port,
    /** Request bodies in arrival order. */
    requests,
    /** When each request arrived. */
    times,
    /** When each request was answered (later than it arrived while held). */
    answered,
    get hold() {
      return model.hold;
    },
    set hold(f) {
      model.hold = f;
    },
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}
