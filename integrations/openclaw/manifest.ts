// openclaw.plugin.json, derived from the one config schema: OpenClaw validates the plugin's
// config with this JSON Schema before loading any code; `openClawPluginConfig` validates the
// same keys again at load (and names the key in its error). `npm run openclaw:manifest` writes
// the file; a spec fails when the committed file and the schema drift apart.
import { z } from 'zod';
import { OPENCLAW_PLUGIN_ID, openClawPluginConfigSchema } from '../../topology/config.js';

export function openClawManifest(): Record<string, unknown> {
  const { $schema: _ignored, ...configSchema } = jsonSchemaOf(openClawPluginConfigSchema);
  return {
    id: OPENCLAW_PLUGIN_ID,
    name: 'loopguard',
    description: 'Stops agents that loop: every tool call, and every message from another bot, is checked by a loopguard processor over Kafka.',
    // The tool-result middleware shows warnings to the model and stops runs loopguard ended.
    contracts: { agentToolResultMiddleware: ['openclaw'] },
    configSchema,
  };
}

/**
 * The JSON Schema OpenClaw validates the plugin's config with. A map checked before zod reads it
 * (`unknown` piped into a record: see `namedRecord` in processors/toolLoop/policy.ts) is described
 * by the record it is piped into, not by `unknown`, so OpenClaw still checks its entries.
 */
function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  return z.toJSONSchema(schema, {
    io: 'input',
    unrepresentable: 'any',
    override: (ctx) => {
      const def = ctx.zodSchema._zod.def;
      if (def.type !== 'pipe' || def.in._zod.def.type !== 'unknown') return;
      const { $schema: _ignored, ...out } = jsonSchemaOf(def.out as z.ZodType);
      Object.assign(ctx.jsonSchema, out);
    },
  }) as Record<string, unknown>;
}
