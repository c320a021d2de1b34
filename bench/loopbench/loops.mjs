// The loop families: traces whose tail repeats work the agent has already done. Each generator
// sets the trace's label — the first call whose outcome the agent already had — and then keeps
// looping for long enough that a guard that never stops it shows the whole cost.
import { bytes64, iso, mcp, openclaw } from './hosts.mjs';
import { city, fileText, hits, pathOf, query, sentence, service, weather } from './content.mjs';

/** A few distinct calls before the loop starts: real runs rarely loop from their first call. */
function warmUp(t, host) {
  for (let i = t.r.int(0, 4); i > 0; i--) {
    const path = pathOf(t.r);
    if (host === 'mcp') t.call(host, 'read_text_file', { path }, { result: mcp.text(fileText(t.r)) });
    else if (host === 'openclaw') t.call(host, 'read', { path }, { result: openclaw.read(fileText(t.r)) });
    else t.call(host, 'searchDocs', { query: query(t.r) }, { result: { hits: hits(t.r, 3).split('\n') } });
  }
}

/** `n` more calls of `make(i)` after the label: the loop's tail. */
function loop(t, n, make) {
  for (let i = 0; i < n; i++) make(i);
}

const tail = (t) => t.r.int(18, 40);

export const LOOPS = {
  identical: {
    about: 'the same call, the same result, again and again',
    build(t) {
      const host = t.r.pick(['mcp', 'openclaw', 'framework']);
      warmUp(t, host);
      const path = pathOf(t.r);
      const text = fileText(t.r);
      const c = city(t.r);
      const w = weather(t.r, c);
      const once = () =>
        host === 'mcp'
          ? t.call(host, 'read_text_file', { path }, { result: mcp.text(text) })
          : host === 'openclaw'
            ? t.call(host, 'read', { path }, { result: openclaw.read(text) })
            : t.call(host, 'getWeather', { city: c }, { result: w });
      once();
      t.wastedFromHere();
      loop(t, tail(t), once);
    },
  },

  volatile: {
    about: 'repeats whose results differ only in timestamps, request ids, wrapper nonces, durations',
    build(t) {
      const host = t.r.pick(['mcp', 'openclaw', 'framework']);
      warmUp(t, host);
      const svc = service(t.r);
      const body = sentence(t.r, 8, 20);
      const url = `https://status.example.com/${svc}`;
      const once = () => {
        const at = iso(t.ts);
        if (host === 'mcp')
          return t.call(
            host,
            'service_status',
            { service: svc },
            { result: mcp.text(`${svc}: degraded — ${body} (checked ${at}, request ${t.r.uuid()}, ${t.r.int(20, 900)} ms)`) },
          );
        if (host === 'openclaw') {
          const id = t.r.hex(16);
          const wrapped = `<<<EXTERNAL_UNTRUSTED_CONTENT id="${id}">>>\nSource: ${url}\n---\n${body}\n<<<END_EXTERNAL_UNTRUSTED_CONTENT id="${id}">>>`;
          return t.call(
            host,
            'web_fetch',
            { url },
            { result: { content: [{ type: 'text', text: wrapped }], details: { url, status: 200, fetchedAt: at, tookMs: t.r.int(30, 700) } } },
          );
        }
        return t.call(
          host,
          'serviceStatus',
          { service: svc },
          { result: { service: svc, status: 'degraded', detail: body, checkedAt: at, requestId: t.r.uuid(), durationMs: t.r.int(20, 900) } },
        );
      };
      once();
      t.wastedFromHere();
      loop(t, tail(t), once);
    },
  },

  jitter: {
    about: 'trivially different arguments (case, spacing, ./ and trailing slashes), the same outcome',
    build(t) {
      const host = t.r.pick(['mcp', 'openclaw', 'framework']);
      warmUp(t, host);
      const path = pathOf(t.r);
      const text = fileText(t.r);
      const q = query(t.r);
      const found = hits(t.r, 4);
      const variants = [(s) => s, (s) => `./${s}`, (s) => s.replace('/', '//'), (s) => `${s} `, (s) => ` ${s}`];
      const qVariants = [(s) => s, (s) => s.toUpperCase(), (s) => `${s}?`, (s) => `  ${s}`, (s) => s.replace(' ', '  '), (s) => `${s[0].toUpperCase()}${s.slice(1)}`];
      const once = (i) => {
        if (host === 'mcp') return t.call(host, 'read_text_file', { path: variants[i % variants.length](path) }, { result: mcp.text(text) });
        if (host === 'openclaw') return t.call(host, 'read', { path: variants[i % variants.length](path) }, { result: openclaw.read(text) });
        return t.call(host, 'searchDocs', { query: qVariants[i % qVariants.length](q) }, { result: { query: q, hits: found.split('\n') } });
      };
      once(0);
      t.wastedFromHere();
      loop(t, tail(t), (i) => once(i + 1));
    },
  },

  'retry-storm': {
    about: 'retrying a call that fails the same deterministic way',
    build(t) {
      const host = t.r.pick(['mcp', 'openclaw', 'framework']);
      warmUp(t, host);
      const file = `/data/${t.r.word()}.csv`;
      const day = `2026-${t.r.int(13, 19)}-0${t.r.int(1, 9)}`;
      const once = () =>
        host === 'mcp'
          ? t.call(host, 'read_text_file', { path: file }, { result: mcp.error(`Error: ENOENT: no such file or directory, open '${file}'`) })
          : host === 'openclaw'
            ? t.call(host, 'read', { path: file }, { error: `ENOENT: no such file or directory, open '${file}'` })
            : t.call(host, 'bookMeeting', { day }, { error: { name: 'ValidationError', message: `invalid date '${day}': month must be 1-12` } });
      once();
      t.wastedFromHere();
      loop(t, tail(t), once);
    },
  },

  'exec-fail': {
    about: 'a failing command whose output differs only in times, durations and PIDs',
    build(t) {
      warmUp(t, 'openclaw');
      const mod = t.r.word(4, 9);
      const command = t.r.pick(['npm run build', 'npm test', 'make', 'pytest -x', 'cargo build']);
      const once = () => {
        const pid = t.r.int(1000, 65000);
        const clock = iso(t.ts).slice(11, 19);
        const output = `[${clock}] ${command} (pid ${pid})\n${iso(t.ts)} ERROR Cannot find module '${mod}'\nfailed after ${(t.r.int(80, 9000) / 1000).toFixed(2)}s`;
        return t.call(
          'openclaw',
          'exec',
          { command },
          { result: openclaw.exec({ status: 'failed', exitCode: 1, output, durationMs: t.r.int(80, 9000), pid }) },
          { ms: t.r.int(500, 9000) },
        );
      };
      once();
      t.wastedFromHere();
      loop(t, tail(t), once);
    },
  },

  'poll-stuck': {
    about: 'polling a job that stopped making progress, without waiting',
    build(t) {
      const host = t.r.pick(['mcp', 'openclaw', 'framework']);
      const job = t.r.word(6, 10);
      let progress = t.r.int(0, 30);
      let log = `started ${job}`;
      const poll = () => {
        if (host === 'mcp') return t.call(host, 'get_job_status', { jobId: job }, { result: mcp.structured(`job ${job} is running`, { state: 'running', progress }) });
        if (host === 'openclaw') return t.call(host, 'process', { action: 'poll', sessionId: job }, { result: openclaw.poll({ status: 'running', aggregated: log }) });
        return t.call(host, 'checkDeployment', { id: job }, { result: { id: job, state: 'rolling', progress } });
      };
      for (let i = t.r.int(1, 6); i > 0; i--) {
        poll();
        progress += t.r.int(3, 15);
        log += `\n${sentence(t.r, 3, 8)}`;
      }
      poll();
      t.wastedFromHere();
      loop(t, tail(t), poll);
    },
  },

  'ping-pong': {
    about: 'two calls alternating, each giving the same result every time',
    build(t) {
      const host = t.r.pick(['mcp', 'openclaw', 'framework']);
      warmUp(t, host);
      const path = pathOf(t.r);
      const text = fileText(t.r);
      const failure = `FAIL ${path}\n  ${sentence(t.r)}\nTests: 1 failed, ${t.r.int(3, 90)} passed`;
      const order = t.r.int(1000, 9999);
      const a = () =>
        host === 'mcp'
          ? t.call(host, 'read_text_file', { path }, { result: mcp.text(text) })
          : host === 'openclaw'
            ? t.call(host, 'read', { path }, { result: openclaw.read(text) })
            : t.call(host, 'getOrder', { id: order }, { result: { id: order, status: 'held', customer: 77 } });
      const b = () =>
        host === 'mcp'
          ? t.call(host, 'run_tests', { path }, { result: mcp.text(failure) })
          : host === 'openclaw'
            ? t.call(
                host,
                'exec',
                { command: `npx vitest run ${path}` },
                { result: openclaw.exec({ status: 'failed', exitCode: 1, output: failure, durationMs: 1200, pid: 4100 }) },
              )
            : t.call(host, 'getCustomer', { id: 77 }, { result: { id: 77, hold: true, reason: 'manual review' } });
      a();
      b();
      t.wastedFromHere();
      loop(t, tail(t), (i) => (i % 2 === 0 ? a() : b()));
    },
  },

  cycle: {
    about: 'three or four calls in a cycle, each giving the same result every time',
    build(t) {
      const host = t.r.pick(['mcp', 'openclaw', 'framework']);
      warmUp(t, host);
      const k = t.r.int(3, 4);
      const calls = Array.from({ length: k }, (_, i) => {
        const path = pathOf(t.r);
        const text = fileText(t.r, 2, 8);
        if (host === 'mcp') return () => t.call(host, ['read_text_file', 'list_directory', 'search_files', 'get_file_info'][i], { path }, { result: mcp.text(text) });
        if (host === 'openclaw')
          return () =>
            i === 1
              ? t.call(host, 'exec', { command: `ls ${path}` }, { result: openclaw.exec({ status: 'completed', exitCode: 0, output: text, durationMs: 30, pid: 300 + i }) })
              : t.call(host, 'read', { path }, { result: openclaw.read(text) });
        return () => t.call(host, ['getOrder', 'getCustomer', 'getInvoice', 'getShipment'][i], { id: 100 + i }, { result: { id: 100 + i, note: text } });
      });
      for (const c of calls) c();
      t.wastedFromHere();
      loop(t, tail(t), (i) => calls[i % k]());
    },
  },

  'unknown-tool': {
    about: 'calling a tool that does not exist, again and again',
    build(t) {
      const host = t.r.pick(['mcp', 'openclaw', 'framework']);
      warmUp(t, host);
      const name = t.r.pick(['deploy_app', 'fetch_docs', 'search_web', 'run_sql', 'send_email']);
      const wording = t.r.pick([`Unknown tool: ${name}`, `Tool "${name}" not found`, `tool '${name}' is not available`]);
      const args = { target: t.r.word() };
      const once = () => (host === 'mcp' ? t.call(host, name, args, { error: { message: `MCP error -32602: ${wording}` } }) : t.call(host, name, args, { error: wording }));
      once();
      t.wastedFromHere();
      loop(t, tail(t), once);
    },
  },

  compaction: {
    about: 'after a context compaction, repeating a call made before it',
    build(t) {
      const host = t.r.pick(['mcp', 'openclaw', 'framework']);
      const path = pathOf(t.r);
      const text = fileText(t.r);
      const c = city(t.r);
      const w = weather(t.r, c);
      const once = () =>
        host === 'mcp'
          ? t.call(host, 'read_text_file', { path }, { result: mcp.text(text) })
          : host === 'openclaw'
            ? t.call(host, 'read', { path }, { result: openclaw.read(text) })
            : t.call(host, 'getWeather', { city: c }, { result: w });
      warmUp(t, host);
      once();
      warmUp(t, host);
      t.compaction();
      t.wastedFromHere();
      loop(t, tail(t), once);
    },
  },

  'write-unchanged': {
    about: 'writing the same content to the same file again and again',
    build(t) {
      const host = t.r.pick(['mcp', 'openclaw', 'framework']);
      warmUp(t, host);
      const path = pathOf(t.r);
      const content = fileText(t.r);
      const bytes = Buffer.byteLength(content);
      if (host === 'openclaw') {
        t.call(host, 'write', { path, content }, { result: openclaw.write({ path, changed: true, bytes }) });
        t.call(host, 'write', { path, content }, { result: openclaw.write({ path, changed: false, bytes }) });
        t.wastedFromHere();
        loop(t, tail(t), () => t.call(host, 'write', { path, content }, { result: openclaw.write({ path, changed: false, bytes }) }));
        return;
      }
      const once = () =>
        host === 'mcp'
          ? t.call(host, 'write_file', { path, content }, { result: mcp.text(`Successfully wrote to ${path}`) })
          : t.call(host, 'saveFile', { path, content }, { result: { ok: true, path, bytes } });
      once();
      t.wastedFromHere();
      loop(t, tail(t), once);
    },
  },

  media: {
    about: 'the same image, embedded resource or structured result again and again',
    build(t) {
      warmUp(t, 'mcp');
      const kind = t.r.pick(['image', 'resource', 'structured', 'audio']);
      const path = `shots/${t.r.word()}.png`;
      const image = bytes64(t.r, t.r.int(200, 600));
      const uri = `file:///data/${t.r.word()}.json`;
      const doc = fileText(t.r, 2, 6);
      const stats = { rows: t.r.int(10, 9000), failed: t.r.int(1, 9), state: 'blocked' };
      const once = () =>
        kind === 'image'
          ? t.call('mcp', 'read_media_file', { path }, { result: mcp.image(image) })
          : kind === 'audio'
            ? t.call('mcp', 'read_media_file', { path: path.replace('.png', '.wav') }, { result: mcp.audio(image) })
            : kind === 'resource'
              ? t.call('mcp', 'get_resource', { uri }, { result: mcp.resource(uri, doc) })
              : t.call('mcp', 'import_status', { batch: 7 }, { result: mcp.structured('import status', stats) });
      once();
      t.wastedFromHere();
      loop(t, tail(t), once);
    },
  },

  batch: {
    about: 'the same call asked for several times in each of several parallel batches',
    build(t) {
      const host = t.r.pick(['mcp', 'openclaw', 'framework']);
      warmUp(t, host);
      const path = pathOf(t.r);
      const text = fileText(t.r, 2, 10);
      const one = () =>
        host === 'mcp'
          ? ['mcp', 'read_text_file', { path }, { result: mcp.text(text) }]
          : host === 'openclaw'
            ? ['openclaw', 'read', { path }, { result: openclaw.read(text) }]
            : ['framework', 'readFile', { path }, { result: { path, text } }];
      const calls = () => Array.from({ length: t.r.int(2, 4) }, one);
      t.turn(calls());
      t.wastedFromHere();
      loop(t, t.r.int(10, 20), () => t.turn(calls()));
    },
  },

  'bot-pair': {
    about: 'two bots answering each other in a channel',
    build(t) {
      const channel = t.r.pick(['slack', 'discord', 'telegram', 'matrix']);
      const conversation = `C${t.r.hex(8)}`;
      const [a, b] = [`bot-${t.r.word(3, 6)}`, `bot-${t.r.word(3, 6)}`];
      const person = `U${t.r.hex(6)}`;
      t.human(channel, conversation, person, a, { gapMs: 0 });
      t.human(channel, conversation, person, b, { gapMs: 0 });
      t.bot(channel, conversation, a, b, sentence(t.r), { gapMs: t.r.int(2_000, 9_000) });
      t.bot(channel, conversation, b, a, sentence(t.r), { gapMs: t.r.int(2_000, 9_000) });
      t.wastedFromHere();
      for (let i = t.r.int(30, 60); i > 0; i--) {
        const [from, to] = i % 2 === 0 ? [a, b] : [b, a];
        t.bot(channel, conversation, from, to, sentence(t.r), { gapMs: t.r.int(1_500, 9_000) });
      }
    },
  },
};
