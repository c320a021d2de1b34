// How the openclaw profile names a call (docs/behaviour.md §6): openclaw@2026.9.6 detects on the
// policy name of a tool, not on the name the model wrote: trimmed, lowercased, and a few aliases
// mapped to the tool they stand for. Its argument hashes carry that name as their prefix.

/** The aliases openclaw@2026.9.6 maps before it matches tool names. */
const ALIASES: ReadonlyMap<string, string> = new Map([
  ['bash', 'exec'],
  ['apply-patch', 'apply_patch'],
  ['cron', 'automations'],
]);

/** A tool name as the profile detects on it. */
export function profileToolName(toolName: string): string {
  const lower = toolName.trim().toLowerCase();
  return ALIASES.get(lower) ?? lower;
}

/**
 * An argument hash under the profile's name of its tool. Hashes loopguard computed (and runners
 * following §2.2) are `<toolName>:` + the digest, so the prefix is renamed; a hash of another
 * form is the runner's own, compared as it is.
 */
export function profileArgsHash(toolName: string, name: string, argsHash: string): string {
  if (name === toolName || !argsHash.startsWith(toolName) || argsHash.charCodeAt(toolName.length) !== 58 /* ':' */) return argsHash;
  return name + argsHash.slice(toolName.length);
}
