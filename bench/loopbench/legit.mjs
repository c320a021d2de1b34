// The legitimate families: real work that repeats calls, results or tools without looping. Any
// block here is a false block; any warning that reaches the model, a false warning.
import { bytes64, iso, mcp, openclaw } from './hosts.mjs';
import { city, fileText, hits, pathOf, query, sentence, service, weather } from './content.mjs';

/**
 * The wait before a poll. A poller checks again soon while the job moves; when it saw the same
 * answer twice in a row it waits (30 s to 2 min) before asking a third time, as a person would —
 * and as the gateway's own warning tells a model to do.
 */
const pollGap = (t, repeated) => (repeated ? t.r.int(30_000, 120_000) : t.r.int(2_000, 15_000));

export const LEGIT = {
  'poll-progress': {
    about: 'polling a job until it finishes (up to 100 polls), with quiet stretches',
    build(t) {
      const host = t.r.pick(['mcp', 'openclaw', 'framework']);
      const job = t.r.word(6, 10);
      const polls = t.r.int(5, 100);
      let progress = 0;
      let log = `started ${job}`;
      let moved = true;
      let repeated = false;
      for (let i = 0; i < polls; i++) {
        const last = i === polls - 1;
        if (last) progress = 100;
        const state = last ? 'succeeded' : 'running';
        t.ts += pollGap(t, repeated);
        if (host === 'mcp') t.call(host, 'get_job_status', { jobId: job }, { result: mcp.structured(`job ${job} is ${state}`, { state, progress }) }, { think: false });
        else if (host === 'openclaw')
          t.call(
            host,
            'process',
            { action: 'poll', sessionId: job },
            { result: openclaw.poll({ status: last ? 'completed' : 'running', aggregated: log, exitCode: last ? 0 : null }) },
            { think: false },
          );
        else t.call(host, 'checkDeployment', { id: job }, { result: { id: job, state: last ? 'done' : 'rolling', progress } }, { think: false });
        // The poller saw this answer repeat the one before it: it will wait before asking again.
        repeated = !moved;
        moved = t.r.chance(0.7);
        if (moved) {
          progress = Number((progress + t.r.int(1, 9) / 10).toFixed(1));
          log += `\n${sentence(t.r, 3, 8)}`;
        }
      }
    },
  },

  pagination: {
    about: 'reading a listing page by page',
    build(t) {
      const host = t.r.pick(['mcp', 'framework', 'openclaw']);
      const pages = t.r.int(5, 60);
      for (let p = 1; p <= pages; p++) {
        const items = p === pages ? [] : Array.from({ length: 20 }, (_, i) => `${t.r.word()}-${p * 20 + i}`);
        if (host === 'mcp') t.call(host, 'list_issues', { page: p, perPage: 20 }, { result: mcp.structured(`page ${p}`, { items, next: p < pages ? p + 1 : null }) });
        else if (host === 'openclaw')
          t.call(
            host,
            'exec',
            { command: `gh issue list --page ${p}` },
            { result: openclaw.exec({ status: 'completed', exitCode: 0, output: items.join('\n'), durationMs: 400, pid: 900 + p }) },
          );
        else t.call(host, 'listOrders', { cursor: p === 1 ? null : `c${p}` }, { result: { items, nextCursor: p < pages ? `c${p + 1}` : null } });
      }
    },
  },

  'test-reruns': {
    about: 'running the tests again after each edit, the failure unchanged until the fix',
    build(t) {
      const host = t.r.pick(['mcp', 'openclaw', 'framework']);
      const path = pathOf(t.r);
      const failure = `FAIL ${path}\n  expected ${t.r.int(1, 99)} to equal ${t.r.int(100, 999)}\nTests: 1 failed, ${t.r.int(3, 90)} passed`;
      const pass = `PASS ${path}\nTests: ${t.r.int(4, 91)} passed`;
      const edits = t.r.int(3, 15);
      const test = (ok) =>
        host === 'mcp'
          ? t.call(host, 'run_tests', { path }, { result: mcp.text(ok ? pass : failure) })
          : host === 'openclaw'
            ? t.call(
                host,
                'exec',
                { command: 'npm test' },
                { result: openclaw.exec({ status: ok ? 'completed' : 'failed', exitCode: ok ? 0 : 1, output: ok ? pass : failure, durationMs: 3000, pid: 7000 + t.count }) },
                { ms: 3000 },
              )
            : t.call(host, 'runTests', { path }, { result: { ok, output: ok ? pass : failure } });
      test(false);
      for (let i = 1; i <= edits; i++) {
        const edit = { path, oldText: sentence(t.r, 2, 5), newText: sentence(t.r, 2, 5) };
        if (host === 'mcp') t.call(host, 'edit_file', { ...edit, dryRun: false }, { result: mcp.text(`Applied edit to ${path}`) });
        else if (host === 'openclaw') t.call(host, 'edit', edit, { result: { content: [{ type: 'text', text: `Edited ${path}` }], details: { path, changed: true } } });
        else t.call(host, 'editFile', edit, { result: { ok: true } });
        test(i === edits);
      }
    },
  },

  'transient-retry': {
    about: 'retries that succeed after rate limits, timeouts and 5xx answers',
    build(t) {
      const host = t.r.pick(['mcp', 'openclaw', 'framework']);
      for (let k = t.r.int(3, 10); k > 0; k--) {
        const c = city(t.r);
        const fails = t.r.int(1, 4);
        for (let i = 0; i <= fails; i++) {
          const ok = i === fails;
          if (i > 0) t.ts += t.r.int(1_000, 10_000);
          const err = t.r.pick(['429 Too Many Requests: rate limit exceeded', '503 Service Unavailable', 'request timed out after 30000 ms', 'ECONNRESET: socket hang up']);
          if (host === 'mcp') t.call(host, 'get_forecast', { city: c }, ok ? { result: mcp.text(JSON.stringify(weather(t.r, c))) } : { result: mcp.error(`Error: ${err}`) });
          else if (host === 'openclaw')
            t.call(host, 'web_fetch', { url: `https://api.example.com/weather?q=${c}` }, ok ? { result: openclaw.read(JSON.stringify(weather(t.r, c))) } : { error: err });
          else
            t.call(host, 'getForecast', { city: c }, ok ? { result: weather(t.r, c) } : { error: { name: 'HTTPError', message: err, status: err.startsWith('429') ? 429 : 503 } });
        }
      }
    },
  },

  'distinct-reads': {
    about: 'reading many different files',
    build(t) {
      const host = t.r.pick(['mcp', 'openclaw', 'framework']);
      for (let i = t.r.int(10, 60); i > 0; i--) {
        const path = pathOf(t.r);
        if (host === 'mcp') t.call(host, 'read_text_file', { path }, { result: mcp.text(fileText(t.r)) });
        else if (host === 'openclaw') t.call(host, 'read', { path }, { result: openclaw.read(fileText(t.r)) });
        else t.call(host, 'readFile', { path }, { result: { path, text: fileText(t.r) } });
      }
    },
  },

  'read-after-write': {
    about: 'read, edit, read the same file again: each read shows the edit',
    build(t) {
      const host = t.r.pick(['mcp', 'openclaw', 'framework']);
      const path = pathOf(t.r);
      let text = fileText(t.r);
      const read = () =>
        host === 'mcp'
          ? t.call(host, 'read_text_file', { path }, { result: mcp.text(text) })
          : host === 'openclaw'
            ? t.call(host, 'read', { path }, { result: openclaw.read(text) })
            : t.call(host, 'readFile', { path }, { result: { path, text } });
      read();
      for (let i = t.r.int(4, 20); i > 0; i--) {
        const line = sentence(t.r);
        text = `${text}\n${line}`;
        if (host === 'mcp') t.call(host, 'edit_file', { path, edits: [{ oldText: '', newText: line }] }, { result: mcp.text(`Applied edit to ${path}`) });
        else if (host === 'openclaw')
          t.call(host, 'edit', { path, newText: line }, { result: { content: [{ type: 'text', text: `Edited ${path}` }], details: { path, changed: true } } });
        else t.call(host, 'appendLine', { path, line }, { result: { ok: true } });
        read();
      }
    },
  },

  'refined-search': {
    about: 'searching again with refined queries',
    build(t) {
      const host = t.r.pick(['mcp', 'openclaw', 'framework']);
      let q = query(t.r);
      for (let i = t.r.int(3, 12); i > 0; i--) {
        q = t.r.chance(0.5) ? `${q} ${query(t.r).split(' ')[0]}` : query(t.r);
        const found = t.r.chance(0.2) ? 'No results.' : hits(t.r, t.r.int(1, 6));
        if (host === 'mcp') t.call(host, 'search', { query: q }, { result: mcp.text(found) });
        else if (host === 'openclaw') t.call(host, 'web_search', { query: q }, { result: openclaw.read(found) });
        else t.call(host, 'searchDocs', { query: q }, { result: { query: q, hits: found.split('\n') } });
      }
    },
  },

  'nontext-progress': {
    about: 'progress shown only in images, embedded resources or structuredContent',
    build(t) {
      const kind = t.r.pick(['image', 'resource', 'structured', 'blob']);
      const path = `shots/${t.r.word()}.png`;
      const uri = `file:///data/${t.r.word()}.json`;
      for (let i = 0, n = t.r.int(5, 40); i < n; i++) {
        if (kind === 'image') t.call('mcp', 'read_media_file', { path }, { result: mcp.image(bytes64(t.r, 300)) });
        else if (kind === 'blob') t.call('mcp', 'get_resource', { uri }, { result: mcp.blob(uri, bytes64(t.r, 200)) });
        else if (kind === 'resource') t.call('mcp', 'get_resource', { uri }, { result: mcp.resource(uri, JSON.stringify({ processed: i * 37, at: i })) });
        else t.call('mcp', 'import_status', { batch: 7 }, { result: mcp.structured('import is running', { state: 'running', rows: i * 113 + 5 }) });
      }
    },
  },

  'json-progress': {
    about: 'a framework tool returning plain JSON that changes',
    build(t) {
      const id = t.r.word(5, 9);
      let progress = 0;
      for (let i = 0, n = t.r.int(5, 40); i < n && progress < 100; i++) {
        progress = Math.min(100, progress + t.r.int(1, 6));
        t.call('framework', 'checkRollout', { id }, { result: { id, state: progress < 100 ? 'rolling' : 'done', progress, healthy: t.r.int(1, 12) } });
      }
    },
  },

  monitoring: {
    about: 'scheduled checks minutes apart that keep returning the same healthy answer',
    build(t) {
      const host = t.r.pick(['mcp', 'openclaw', 'framework']);
      const svc = service(t.r);
      for (let i = 0, n = t.r.int(20, 100); i < n; i++) {
        t.ts += t.r.int(300_000, 900_000);
        if (host === 'mcp') t.call(host, 'check_health', { service: svc }, { result: mcp.text(`${svc}: all 12 instances healthy`) }, { think: false });
        else if (host === 'openclaw')
          t.call(
            host,
            'exec',
            { command: `curl -s https://${svc}.internal/health` },
            { result: openclaw.exec({ status: 'completed', exitCode: 0, output: '{"status":"ok"}', durationMs: 80, pid: 5000 + i }) },
            { think: false },
          );
        else t.call(host, 'checkHealth', { service: svc }, { result: { service: svc, healthy: true, instances: 12 } }, { think: false });
      }
    },
  },

  'short-runs': {
    about: 'a long session of short runs that each start by reading the same things',
    build(t) {
      const host = t.r.pick(['mcp', 'openclaw', 'framework']);
      const config = fileText(t.r, 3, 8);
      for (let run = 0, runs = t.r.int(10, 40); run < runs; run++) {
        if (run > 0) t.nextRun(t.r.int(60_000, 1_800_000));
        if (host === 'mcp') t.call(host, 'read_text_file', { path: 'AGENTS.md' }, { result: mcp.text(config) });
        else if (host === 'openclaw') t.call(host, 'read', { path: 'AGENTS.md' }, { result: openclaw.read(config) });
        else t.call(host, 'readFile', { path: 'AGENTS.md' }, { result: { path: 'AGENTS.md', text: config } });
        const cities = new Set();
        for (let i = t.r.int(0, 4); i > 0; i--) {
          const c = city(t.r);
          if (cities.has(c)) continue;
          cities.add(c);
          if (host === 'mcp') t.call(host, 'get_forecast', { city: c }, { result: mcp.text(JSON.stringify(weather(t.r, c))) });
          else if (host === 'openclaw') t.call(host, 'web_search', { query: `weather ${c} ${iso(t.ts).slice(0, 10)}` }, { result: openclaw.read(hits(t.r, 2)) });
          else t.call(host, 'getWeather', { city: c }, { result: weather(t.r, c) });
        }
      }
    },
  },

  'bot-chat': {
    about: 'people talking with bots; bots answer people, and each other once',
    build(t) {
      const channel = t.r.pick(['slack', 'discord', 'telegram', 'matrix']);
      const conversation = `C${t.r.hex(8)}`;
      const [a, b] = [`bot-${t.r.word(3, 6)}`, `bot-${t.r.word(3, 6)}`];
      for (let i = t.r.int(8, 25); i > 0; i--) {
        const person = `U${t.r.hex(6)}`;
        t.human(channel, conversation, person, a, { gapMs: t.r.int(20_000, 600_000) });
        t.human(channel, conversation, person, b, { gapMs: 0 });
        t.bot(channel, conversation, a, b, sentence(t.r), { gapMs: t.r.int(2_000, 9_000) });
        if (t.r.chance(0.6)) t.bot(channel, conversation, b, a, sentence(t.r), { gapMs: t.r.int(2_000, 9_000) });
      }
    },
  },
};
