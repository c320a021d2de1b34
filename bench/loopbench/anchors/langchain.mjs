// LangChain.js `toolCallLimitMiddleware` (langchain 1.5, docs "Built-in middleware: Tool call
// limit"): a count of tool calls per run (`runLimit`) or per thread, whatever the arguments; with
// `exitBehavior: "continue"` (its default) the calls over the limit are blocked and the model is
// told so. LangChain sets no limit by default; this row uses runLimit 20 (an assumption: the
// step budget the AI SDK's ToolLoopAgent uses by default).
import { ALLOW, callOnlySession } from './common.mjs';

const RUN_LIMIT = 20;

export const langchainLimit = {
  name: 'LangChain toolCallLimit (20)',
  batchRule: false,
  session: () =>
    callOnlySession((run) => {
      run.count = (run.count ?? 0) + 1;
      return run.count > RUN_LIMIT ? { action: 'block', notify: true, detector: 'run_limit', count: run.count - 1 } : ALLOW;
    }),
};
