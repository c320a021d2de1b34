// `loopguard/mcp`: the MCP proxy for programmatic use (the CLI's `mcp-proxy` runs the same).
export { runMcpProxy, type McpProxyOptions, type ProxyEnd } from './proxy.js';
export type { UpstreamCommand } from './upstream.js';
