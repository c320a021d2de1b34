// openclaw.plugin.json, derived from the one config schema: OpenClaw validates the plugin's
// config with this JSON Schema before loading any code; `openClawPluginConfig` validates the
// same keys again at load (and names the key in its error). `npm run openclaw:manifest` writes
// the file; a spec fails when the committed file and the schema drift apart.
import { z } from 'zod';
import { OPENCLAW_PLUGIN_ID, openClawPluginConfigSchema } from '../../topology/config.js';

export function openClawManifest(): Record<string, unknown> {
  const { $schema: _ignored, ...configSchema } = z.toJSONSchema(openClawPluginConfigSchema, { io: 'input', unrepresentable: 'any' });
  return {
    id: OPENCLAW_PLUGIN_ID,
    name: 'loopguard',
    description: 'Stops agents that loop: every tool call is checked by a loopguard processor over Kafka.',
    // The tool-result middleware shows warnings to the model and stops runs loopguard ended.
    contracts: { agentToolResultMiddleware: ['openclaw'] },
    configSchema,
  };
}
