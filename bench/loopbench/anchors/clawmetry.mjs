// ClawMetry (vivekchand/clawmetry; velocity alerts, PR #314, shipped via #488): an OpenClaw
// dashboard that reads the gateway's session logs and alerts — a warning, never a block — when a
// session makes 20 or more consecutive tool calls without a human turn. It stops nothing by
// itself (its "Kill Loop" button is an operator's action). Its alert is counted here as a
// warning; it reaches the operator rather than the model.
import { ALLOW, callOnlySession } from './common.mjs';

const CALLS_WITHOUT_HUMAN = 20;

export const clawmetry = {
  name: 'ClawMetry (20 calls)',
  batchRule: false,
  session: () => {
    const s = callOnlySession((run) => {
      run.streak = (run.streak ?? 0) + 1;
      // One alert per streak (at the 20th call), as an alert fires once.
      return run.streak === CALLS_WITHOUT_HUMAN ? { action: 'warn', notify: true, detector: 'velocity', count: run.streak } : ALLOW;
    });
    return s;
  },
};
