// The one table `npm run bench` prints: figure, loopguard's value, the baseline measured in the
// same run, their ratio, the issue's goal and whether it is met.

export const fmt = {
  rate: (x) => (x === null ? '—' : `${Math.round(x).toLocaleString('en-US')} ev/s`),
  mb: (x) => (x === null ? '—' : `${x.toFixed(0)} MB`),
  ms: (x) => (x === null ? '—' : `${x < 100 ? x.toFixed(1) : Math.round(x).toLocaleString('en-US')} ms`),
  bytes: (x) => (x === null ? '—' : `${Math.round(x).toLocaleString('en-US')} B`),
  ratio: (x) => (x === null || x === undefined ? '—' : x.toFixed(2)),
};

/**
 * A row. `met` is decided by `check(value, ratio)` when both it and the numbers exist; a figure
 * that could not be measured is a row with `note` and met "n/a", never a silent gap.
 */
export function row(figure, { value = null, baseline = null, show, ratio = null, goal = '—', check, note }) {
  const met = check && value !== null ? check(value, ratio) : null;
  return {
    figure,
    loopguard: show(value),
    baseline: baseline === null ? '—' : show(baseline),
    ratio: fmt.ratio(ratio),
    goal,
    met: met === null ? (check ? 'n/a' : '—') : met ? 'yes' : 'NO',
    note,
    raw: { value, baseline, ratio },
  };
}

export function missing(figure, goal, reason) {
  return { figure, loopguard: '—', baseline: '—', ratio: '—', goal, met: 'n/a', note: reason, raw: { value: null, baseline: null, ratio: null } };
}

const COLUMNS = ['figure', 'loopguard', 'baseline', 'ratio', 'goal', 'met'];
const RIGHT = new Set(['loopguard', 'baseline', 'ratio']);

/** A Markdown table (readable in a terminal, pasteable into bench/README.md), then the notes. */
export function render(rows) {
  const width = Object.fromEntries(COLUMNS.map((c) => [c, Math.max(c.length, ...rows.map((r) => String(r[c]).length))]));
  const cell = (c, v) => (RIGHT.has(c) ? String(v).padStart(width[c]) : String(v).padEnd(width[c]));
  const line = (r) => `| ${COLUMNS.map((c) => cell(c, r[c])).join(' | ')} |`;
  const rule = `|${COLUMNS.map((c) => (RIGHT.has(c) ? `${'-'.repeat(width[c] + 1)}:` : '-'.repeat(width[c] + 2))).join('|')}|`;
  const notes = rows.filter((r) => r.note).map((r) => `- ${r.figure}: ${r.note}`);
  return [line(Object.fromEntries(COLUMNS.map((c) => [c, c]))), rule, ...rows.map(line), ...(notes.length ? ['', ...notes] : [])].join('\n');
}
