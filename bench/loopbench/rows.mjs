// The rows LoopBench compares: loopguard under each of its rule sets, and the anchors — other
// guards reimplemented from their documented rules (anchors/, each citing its source).
import { clawmetry } from './anchors/clawmetry.mjs';
import { doomLoop } from './anchors/doomloop.mjs';
import { langchainLimit } from './anchors/langchain.mjs';
import { microloop } from './anchors/microloop.mjs';
import { openclawAnchor } from './anchors/openclaw.mjs';
import { loopguardGuard } from './guards/loopguard.mjs';

/** loopguard's rule sets: the config a user would write for each, or the example file it runs as it is. */
export const LOOPGUARD_CONFIGS = {
  default: { tools: { loopDetection: { enabled: true } } },
  'openclaw profile': { tools: { loopDetection: { enabled: true, profile: 'openclaw' } } },
  early: new URL('../../examples/config/early.json5', import.meta.url),
};

export function rows() {
  return [
    ...Object.entries(LOOPGUARD_CONFIGS).map(([name, config]) => loopguardGuard(`loopguard ${name}`, config)),
    openclawAnchor,
    doomLoop,
    microloop,
    langchainLimit,
    clawmetry,
  ];
}
