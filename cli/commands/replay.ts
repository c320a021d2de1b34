// `loopguard replay` lives in cli/replay/: batches, parse workers and the ordered fold.
export { replay, type Auto, type ReplayOptions, type ReplayStats } from '../replay/run.js';
