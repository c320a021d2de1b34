// Types of scripts/stack/secure.mjs, for the specs that check it against the README and the topology.
export interface Tenant {
  readonly prefix: string;
  readonly group: string;
  readonly processor: string | undefined;
  readonly runners: readonly string[];
  readonly dispatchers: readonly string[];
}
export const USERS: readonly string[];
export const TENANTS: readonly Tenant[];
export function tenantTopics(prefix: string): { toolEvents: string; channelEvents: string; verdicts: string; deadLetter: string; changelogs: string[] };
export function aclCommands(tenant: Tenant): string[][];
