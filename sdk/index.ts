// What agent runners and channel dispatchers import.
export { LoopguardRunner, type RunnerOptions, type ToolCallInput, type ToolVerdict, type RunRef, type RunAbortNotice } from './runner.js';
export { LoopguardDispatcher, type Inbound, type InboundVerdict } from './dispatcher.js';
export type { ClientOptions } from './connection.js';
export { canonicalJson, hashArgs, hashOutcome, hashValue, unknownToolNameOf, type OutcomeHash, type OutcomeInput } from '../processors/toolLoop/hashing.js';
export * from '../processors/botLoop/adapters/index.js';
export type { ToolEvent } from '../processors/toolLoop/events.js';
export type { BotMessage } from '../processors/botLoop/events.js';
export type { ToolDecision, RunAbort } from '../processors/toolLoop/react.js';
export type { BotDecision } from '../processors/botLoop/react.js';
