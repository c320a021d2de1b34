// OpenRouter's agent SDK, `doomLoop: true` in `callModel` (@openrouter/agent >= 0.9.0; PR
// OpenRouterTeam/typescript-agent#73, merged 2026-07-29; "How to Stop an AI Agent Stuck in an
// Infinite Loop", OpenRouter blog, @openrouter/agent 0.11.0). Documented rules reimplemented:
// - identity: tool name + arguments (no outcomes); a tool's streak continues across other tools
//   and restarts when the same tool is called with other arguments;
// - identical calls in one turn count once;
// - the ladder: observe at 2 (nothing the model sees), block at 3, stop the run at 6; blocked
//   calls count towards the stop (the 6th identical call ends the run).
// Not modelled: the text-repeat detector and the optional steer rung (off by default).
import { ALLOW, callOnlySession, identityOf } from './common.mjs';

export const doomLoop = {
  name: 'OpenRouter doomLoop',
  batchRule: false,
  session: () =>
    callOnlySession((run, s, turn) => {
      const id = identityOf(s);
      if (turn.has(id)) return turn.get(id);
      run.streaks ??= new Map();
      const prev = run.streaks.get(s.toolName);
      const count = prev?.id === id ? prev.count + 1 : 1;
      run.streaks.set(s.toolName, { id, count });
      const d =
        count >= 6
          ? { action: 'block', notify: true, detector: 'doom_loop_stop', count, abort: true }
          : count >= 3
            ? { action: 'block', notify: true, detector: 'doom_loop', count }
            : ALLOW;
      turn.set(id, d);
      return d;
    }),
};
