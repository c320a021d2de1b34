// Who a proxied session is to loopguard, when the operator does not say.
import type { Implementation } from '@modelcontextprotocol/sdk/types.js';

/** `mcp:<client name>`: sessions of one client share a session key; each has its own run id. */
export function sessionKeyOf(clientInfo: Pick<Implementation, 'name'> | undefined): string {
  const name = clientInfo?.name?.trim();
  return `mcp:${name !== undefined && name !== '' ? name : 'client'}`;
}
