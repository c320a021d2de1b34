// Renders the snapshots the server pushes (GET /api/stream, server-sent events). All counting
// and windowing happens on the server; this file only draws, and never parses data as HTML.
'use strict';

const VERDICTS = ['allow', 'warn', 'block', 'abort', 'deliver', 'suppress'];
const $ = (id) => document.getElementById(id);

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') node.className = v;
    else node.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) if (c !== undefined && c !== null && c !== false) node.append(c instanceof Node ? c : String(c));
  return node;
}

const pad = (n) => String(n).padStart(2, '0');
function clock(ms) {
  const d = new Date(ms);
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}
function duration(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m}m ${pad(s % 60)}s` : `${Math.floor(m / 60)}h ${pad(m % 60)}m`;
}

const chip = (verdict, shadow) => el('span', { class: `chip ${verdict}` }, shadow ? `would ${verdict}` : verdict);
const shadowBadge = (shadow) => (shadow ? el('span', { class: 'badge shadow', title: 'Shadow mode: decided and reported, not enforced' }, 'shadow') : null);

function evidenceLine(ev) {
  if (!ev) return null;
  const parts = Object.entries(ev)
    .filter(([, v]) => v !== null && v !== undefined)
    .map(([k, v]) => {
      if (k === 'since' && typeof v === 'number') return `since ${clock(v)}`;
      if (Array.isArray(v)) return `${k} ${v.length > 6 ? `${v.slice(0, 6).join(', ')} … (${v.length})` : v.join(', ')}`;
      return `${k} ${typeof v === 'object' ? JSON.stringify(v) : v}`;
    });
  return el('div', { class: 'evidence' }, el('span', { class: 'label' }, 'evidence'), ' ', parts.join(' · '));
}

function table(headers, rows, empty) {
  if (rows.length === 0) return el('p', { class: 'empty' }, empty);
  return el(
    'table',
    {},
    el(
      'thead',
      {},
      el(
        'tr',
        {},
        headers.map((h) => el('th', {}, h)),
      ),
    ),
    el('tbody', {}, rows),
  );
}

function renderTotals(s) {
  $('totals').replaceChildren(
    ...VERDICTS.map((v) => el('div', { class: `total ${v}` }, el('span', { class: 'n' }, s.totals[v] ?? 0), el('span', { class: 'k' }, v))),
    el('div', { class: 'total window' }, `decisions in the last ${s.windowMinutes} minutes of stream time`),
  );
}

function renderRuns(s) {
  const rows = s.runs.map((r) =>
    el(
      'tr',
      { 'data-run': r.key },
      el('td', { class: 'mono key', title: r.key }, r.key),
      el('td', {}, chip(r.state === 'aborted' ? 'abort' : r.state === 'blocked' ? 'block' : 'warn', r.shadow), r.state === 'aborted' ? ' aborted' : ''),
      el('td', {}, r.toolName, el('div', { class: 'sub' }, r.detector, r.count !== null ? ` · count ${r.count}` : '')),
      el('td', { class: 'num' }, r.warns),
      el('td', { class: 'num' }, r.blocks),
      el('td', { class: 'num', title: 'calls allowed or warned: what budgets count' }, r.calls),
      el('td', { class: 'time' }, clock(r.lastTs)),
    ),
  );
  $('runs').replaceChildren(table(['run', 'state', 'tool · detector', 'warns', 'blocks', 'calls', 'last'], rows, 'No run is being warned or blocked.'));
  // The message the model was given, under its run.
  for (const r of s.runs) {
    if (!r.message) continue;
    const row = [...$('runs').querySelectorAll('tr[data-run]')].find((tr) => tr.getAttribute('data-run') === r.key);
    row?.after(el('tr', { class: 'message-row' }, el('td', { colspan: 7 }, el('q', {}, r.message))));
  }
}

function renderCooldowns(s) {
  const rows = s.cooldowns.map((c) =>
    el(
      'tr',
      { 'data-pair': c.bots },
      el('td', { class: 'mono' }, c.bots, el('div', { class: 'sub' }, `${c.channel} ${c.conversation}`)),
      el('td', {}, c.reason.replace(/_/g, ' '), shadowBadge(c.shadow)),
      el('td', { class: 'num' }, c.suppressed),
      el('td', { class: 'left' }, el('strong', {}, duration(c.leftMs)), el('div', { class: 'sub' }, `until ${clock(c.cooldownUntil)}`)),
    ),
  );
  $('cooldowns').replaceChildren(table(['pair', 'reason', 'suppressed', 'left'], rows, 'No bot pair is in cooldown.'));
}

function renderCounts(s) {
  $('counts-title').textContent = `By detector and reason · last 1, 5, ${s.windowMinutes} minutes`;
  const rows = s.counts.map((c) =>
    el(
      'tr',
      {},
      el('td', {}, chip(c.verdict, false), shadowBadge(c.shadow)),
      el('td', {}, (c.why || '—').replace(/_/g, ' ')),
      ...c.counts.map((n) => el('td', { class: 'num' }, n)),
    ),
  );
  $('counts').replaceChildren(table(['verdict', 'detector / reason', '1m', '5m', `${s.windowMinutes}m`], rows, 'Nothing acted on in the window.'));
}

function renderFeed(s) {
  const items = s.feed.map((f) =>
    el(
      'li',
      { class: `item ${f.verdict}${f.shadow ? ' is-shadow' : ''}` },
      el(
        'div',
        { class: 'line' },
        el('span', { class: 'time' }, clock(f.ts)),
        chip(f.verdict, f.shadow),
        shadowBadge(f.shadow),
        el('span', { class: 'subject' }, f.subject),
        el('span', { class: 'where mono' }, f.where),
        el(
          'span',
          { class: 'why' },
          [
            f.why.replace(/_/g, ' '),
            f.count !== null ? `count ${f.count}` : '',
            f.cooldownUntil !== null && f.cooldownUntil > f.ts ? `cooldown until ${clock(f.cooldownUntil)}` : '',
          ]
            .filter(Boolean)
            .join(' · '),
        ),
      ),
      f.message ? el('q', { class: f.notify ? '' : 'quiet' }, f.message) : null,
      evidenceLine(f.evidence),
    ),
  );
  $('feed').replaceChildren(...items);
  if (items.length === 0) $('feed').append(el('li', { class: 'empty' }, 'No warn, block, abort or suppress decision yet. Decisions appear here as the guard makes them.'));
}

function renderHeader(s) {
  $('where').replaceChildren(
    el('span', { class: 'label' }, 'topic'),
    ' ',
    el('span', { class: 'mono' }, s.topic),
    ' · ',
    el('span', { class: 'label' }, 'now'),
    ' ',
    s.now === null ? '—' : `${new Date(s.now).toLocaleDateString()} ${clock(s.now)}`,
    ' · ',
    `${s.decisions} decisions read`,
  );
  const g = s.guard;
  $('guard').hidden = !g;
  if (g) {
    $('guard').replaceChildren(
      el('span', { class: `dot ${g.ready ? 'ok' : 'wait'}` }),
      g.ready ? 'ready' : 'restoring',
      ' · ',
      `${g.eventsPerSecond.toFixed(1)} events/s`,
      ' · ',
      `lag ${g.lag}`,
    );
  }
}

function render(s) {
  renderHeader(s);
  renderTotals(s);
  renderRuns(s);
  renderCooldowns(s);
  renderCounts(s);
  renderFeed(s);
}

function connect() {
  const link = $('link');
  const stream = new EventSource('/api/stream');
  stream.onopen = () => {
    link.textContent = 'live';
    link.className = 'link live';
  };
  stream.onmessage = (e) => {
    render(JSON.parse(e.data));
    link.textContent = 'live';
    link.className = 'link live';
  };
  stream.onerror = () => {
    link.textContent = 'reconnecting…';
    link.className = 'link down';
  };
}

connect();
