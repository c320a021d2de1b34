// What agent runners and channel dispatchers import: the hashing library (so a runner that
// hashes locally agrees byte for byte with the processor) and the channel adapters.
export { canonicalJson, hashArgs, hashOutcome, hashValue, unknownToolNameOf, type OutcomeHash, type OutcomeInput } from '../processors/toolLoop/hashing.js';
export * from '../processors/botLoop/adapters/index.js';
export type { ToolEvent } from '../processors/toolLoop/events.js';
export type { BotMessage } from '../processors/botLoop/events.js';
export type { ToolDecision, RunAbort } from '../processors/toolLoop/react.js';
export type { BotDecision } from '../processors/botLoop/react.js';
