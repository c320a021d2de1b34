// Plausible payloads: paths, file text, commands, queries. Each draw comes from the trace's own
// generator, so a trace reads the same on every run.

const DIRS = ['src', 'lib', 'app', 'docs', 'test', 'config', 'scripts', 'packages/core/src', 'services/api'];
const EXTS = ['ts', 'js', 'py', 'md', 'json', 'yaml', 'go', 'rs'];
const WORDS =
  'the of and to in is for on with as by at from that this be are it or an not was can but all which their has will one more if about up out they into so than when then only other new some could time these two may first any like over such our most made after also did many before must through back years where much your way well down should because each just those people how too little state good very make world still own see men work long get here between both life being under never day same another know while last might us great old year off come since against go came right used take three'.split(
    ' ',
  );
const CITIES = ['Paris', 'Tokyo', 'Lagos', 'Lima', 'Oslo', 'Seoul', 'Cairo', 'Austin', 'Dublin', 'Taipei', 'Nairobi', 'Quito'];
const SERVICES = ['api', 'billing', 'search', 'auth', 'ingest', 'notifier', 'reports', 'gateway'];

export const pathOf = (r) => `${r.pick(DIRS)}/${r.word(3, 10)}.${r.pick(EXTS)}`;
export const sentence = (r, lo = 6, hi = 16) => Array.from({ length: r.int(lo, hi) }, () => r.pick(WORDS)).join(' ');
export const fileText = (r, lo = 4, hi = 30) => Array.from({ length: r.int(lo, hi) }, () => sentence(r)).join('\n');
export const city = (r) => r.pick(CITIES);
export const service = (r) => r.pick(SERVICES);
export const query = (r) => Array.from({ length: r.int(2, 5) }, () => r.pick(WORDS)).join(' ');
export const hits = (r, n) => Array.from({ length: n }, (_, i) => `${i + 1}. ${sentence(r, 4, 9)} — https://example.org/${r.word(4, 12)}`).join('\n');
export const weather = (r, c) => ({ city: c, tempC: r.int(-10, 38), conditions: r.pick(['clear', 'rain', 'cloudy', 'snow', 'windy']), humidity: r.int(10, 99) });
