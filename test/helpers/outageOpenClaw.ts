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
      const message = `Read them. ${script(paths.map((path) => ({ tool: 'read', args: { path }, times: 1 })))}`;
      // One turn in a session of its own. The test blocks its event loop while it stops and
      // starts the broker: the gateway may close the idle connection fetch keeps meanwhile, and a
      // request sent on it fails before the gateway sees it (the model got nothing): sent again
      // then, on a new connection. On a starved machine the gateway's own request to the model
      // may fail too (its log says `[model-fetch] error`); OpenClaw then retries the turn without
      // the user's message, and the scripted model, finding no script, ends it having asked for
      // nothing. That turn asked loopguard nothing: it is run once more, once.
      const attempt = async (again: boolean): Promise<{ first: number; t: Awaited<ReturnType<typeof turn>> }> => {
        const first = model.requests.length;
        const logged = g.output().length;
        model.hold = pause === undefined ? undefined : () => (model.requests.length - 1 - first === pause.at ? (pause.reached(), pause.until) : undefined);
        const session = `outage-oc-${++runs}`;
        const t = await turn(g, session, message, turnMs).catch((e: unknown) => {
          if (model.requests.length !== first) throw e;
          return turn(g, session, message, turnMs);
        });
        const modelFailed = t.text === 'FINAL: saw 0 tool results.' && paths.length > 0 && g.output().slice(logged).includes('[model-fetch] error');
        return modelFailed && again ? attempt(false) : { first, t };
      };
      const { first, t } = await attempt(true);
      model.hold = undefined;
      expect(t, t.text).toMatchObject({ status: 200, text: `FINAL: saw ${paths.length} tool results.` });
      const texts = (model.requests.at(-1)!.messages ?? []).filter((m) => m.role === 'tool').map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)));
      return paths.map((path, i) => ({ path, text: texts[i] ?? '', ms: model.times[first + i + 1]! - model.answered[first + i]!, at: model.times[first + i + 1]! }));
    },
    close: async () => undefined,
  };
}
