// Channel adapters: public API for channel dispatchers. Channels without a reliable bot
// identity have no adapter and are not guarded.
export { fromDiscord } from './discord.js';
export { fromSlack, type SlackContext } from './slack.js';
export { fromMatrix, withBounceLimit, MATRIX_BOUNCE_LIMIT, type MatrixContext } from './matrix.js';
export { fromGoogleChat } from './googlechat.js';
export { fromFeishu } from './feishu.js';
export { fromTelegram } from './telegram.js';
export type { AdapterResult, IgnoreReason, ReceiverContext } from './types.js';
