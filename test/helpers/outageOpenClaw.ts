// The OpenClaw gateway as a subject of the outage scenario (helpers/outageScenario.ts): kept
// apart from outageSubjects.ts, whose other users need no OpenClaw host.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { script, turn, type RunningGateway } from './openclaw.js';
import type { Subject } from './outageSubjects.js';
import type { ScriptedModel } from './scriptedModel.mjs';

/**
 * An OpenClaw gateway with the plugin, one turn per run (a session of its own each), driven by
 * the scripted model (test/helpers/scriptedModel.mjs): each call reads a file of the workspace.
 * A call's time runs from the model's answer asking for it to the model's next request.
 */
export function openClawSubject(g: RunningGateway, model: ScriptedModel, turnMs: number): Subject {
  let runs = 0;
  return {
    name: 'OpenClaw (Node 24)',
    failure: 'closed',
    run: async (paths, pause) => {
      for (const p of new Set(paths)) writeFileSync(join(g.workspace, p), `contents of ${p}\n`);
      const first = model.requests.length;
      model.hold = pause === undefined ? undefined : () => (model.requests.length - 1 - first === pause.at ? (pause.reached(), pause.until) : undefined);
      const session = `outage-oc-${++runs}`;
      const message = `Read them. ${script(paths.map((path) => ({ tool: 'read', args: { path }, times: 1 })))}`;
      // The test blocks its event loop while it stops and starts the broker: the gateway may
      // close the idle connection fetch keeps meanwhile, and a request sent on it fails before
      // the gateway sees it (the model got nothing). Sent again then, on a new connection.
      const t = await turn(g, session, message, turnMs).catch((e: unknown) => {
        if (model.requests.length !== first) throw e;
        return turn(g, session, message, turnMs);
      });
      model.hold = undefined;
      expect(t, t.text).toMatchObject({ status: 200, text: `FINAL: saw ${paths.length} tool results.` });
      const texts = (model.requests.at(-1)!.messages ?? []).filter((m) => m.role === 'tool').map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)));
      return paths.map((path, i) => ({ path, text: texts[i] ?? '', ms: model.times[first + i + 1]! - model.answered[first + i]!, at: model.times[first + i + 1]! }));
    },
    close: async () => undefined,
  };
}
