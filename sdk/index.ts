// What agent runners and channel dispatchers import.
export {
  LoopguardRunner,
  type RunnerOptions,
  type ToolCallInput,
  type TurnOptions,
  type ToolOutcome,
  type ToolVerdict,
  type ToolWouldHave,
  type RunRef,
  type RunAbortNotice,
  type WouldHaveReport,
} from './runner.js';
export { wholeResult } from './outcomes.js';
export { LoopguardDispatcher, type Inbound, type InboundVerdict, type InboundWouldHave } from './dispatcher.js';
export type { Budget, Evidence } from './verdicts.js';
export type { ClientOptions } from './connection.js';
export {
  canonicalJson,
  earlyIdentity,
  earlyProgressHash,
  hashArgs,
  hashOutcome,
  hashValue,
  keyedArgsHash,
  unknownToolNameOf,
  type OutcomeHash,
  type OutcomeInput,
} from '../processors/toolLoop/hashing.js';
export type { LoopKey } from '../processors/toolLoop/policy.js';
export * from '../processors/botLoop/adapters/index.js';
export type { ToolEvent } from '../processors/toolLoop/events.js';
export type { BotMessage, HumanMessage } from '../processors/botLoop/events.js';
export type { ToolDecision, RunAbort } from '../processors/toolLoop/react.js';
export type { BotDecision } from '../processors/botLoop/react.js';
