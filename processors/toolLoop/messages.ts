// What the model is told. Each text names the tool, the count and the detector, and says what
// to do instead.
import { DETECTORS, type Detector } from './state.js';

export function verdictMessage(detector: Detector, decision: 'warn' | 'block', toolName: string, count: number, paired?: string): string {
  const tag = `[loopguard ${detector}]`;
  switch (detector) {
    case DETECTORS.unknownToolRepeat:
      return `${tag} Blocked: the tool "${toolName}" does not exist here and has been called ${count} ${count === 1 ? 'time' : 'times'} in a row. Stop calling it; use one of the tools you were given, or tell the user what you need.`;
    case DETECTORS.globalCircuitBreaker:
      return `${tag} Blocked: "${toolName}" has returned the same result ${count} times in a row with the same arguments. Repeating it will not change anything; change your approach or report back to the user.`;
    case DETECTORS.knownPollNoProgress:
      return decision === 'block'
        ? `${tag} Blocked: polling "${toolName}" returned the same status ${count} times in a row. The process is not progressing; stop polling, inspect or kill it, or tell the user it is stuck.`
        : `${tag} Warning: polling "${toolName}" has returned the same status ${count} times in a row. Wait longer between polls or check whether the process is stuck instead of polling again.`;
    case DETECTORS.pingPong:
      return decision === 'block'
        ? `${tag} Blocked: you have alternated between "${toolName}" and "${paired ?? toolName}" ${count} times with the same results each time. This cycle makes no progress; step back and try a different approach.`
        : `${tag} Warning: you have alternated between "${toolName}" and "${paired ?? toolName}" ${count} times. If this is not making progress, break the cycle and try something different.`;
    case DETECTORS.genericRepeat:
      return decision === 'block'
        ? `${tag} Blocked: "${toolName}" has been called ${count} times with the same arguments and returned the same result each time. Do not retry it; use what you already have or change the arguments.`
        : `${tag} Warning: "${toolName}" has been called ${count} times with the same arguments. You may be looping; use the results you already have or try a different approach.`;
    case DETECTORS.compactionLoopPersisted:
      return `${tag} Run aborted: after context compaction the agent repeated "${toolName}" with the same arguments and the same result ${count} times. Compaction did not break the loop; start a new run with a different plan.`;
    case DETECTORS.blockEscalation:
      return `${tag} Run aborted: the model kept retrying calls that were blocked (${count} blocked calls, the last one "${toolName}"). The run is ended; start a new run with a different plan instead of retrying.`;
    case DETECTORS.toolCallBudget:
      return `${tag} Blocked: this run has used its budget of calls to "${toolName}" (${count} calls made). Do not call it again in this run; answer with what you already have.`;
    case DETECTORS.runCallBudget:
      return `${tag} Blocked: this run has used its budget of tool calls (${count} calls made), so "${toolName}" was not run. Stop calling tools and answer with what you already have.`;
    case DETECTORS.runTimeBudget:
      return `${tag} Blocked: this run has been calling tools for ${count} seconds, its time budget, so "${toolName}" was not run. Stop calling tools and answer with what you already have.`;
    case DETECTORS.argumentChurn:
      return `${tag} Warning: "${toolName}" has failed the same way ${count} times while you cycled through the same few argument sets. Changing the arguments this way is not making progress; try a different approach.`;
    case DETECTORS.criticalLoopRepeated:
      return `${tag} Run aborted: after a critical loop was blocked, the model repeated one (${count} times in this run, the last with "${toolName}"). The run is ended; start a new run with a different plan.`;
    case DETECTORS.noProgress:
      return `${tag} Blocked: "${toolName}" would repeat a call whose result you already have, and the last ${count} calls brought nothing new. Do not call it again now: use that result, change your approach, or wait before checking again.`;
    case DETECTORS.cycleNoProgress:
      return `${tag} Blocked: the run is going round a cycle of ${count} calls that return the same results every time, and "${toolName}" would start it again. Break the cycle: use what you already have or try something different.`;
    default: {
      const unreachable: never = detector;
      return unreachable;
    }
  }
}

/** A call not run because another call of its turn was blocked (§6). */
export function notRunMessage(detector: Detector, toolName: string): string {
  return `[loopguard ${detector}] Not run: "${toolName}" was not executed because another call of the same turn was blocked for a loop. Reassess before choosing the next action.`;
}
