/**
 * `a2a-kit/mcp`: bridges between A2A and the Model Context Protocol, on the MCP SDK
 * (`@modelcontextprotocol/sdk`, an optional peer dependency).
 * - {@link createMcpServerFromAgent}: an A2A agent as an MCP server (one tool per skill);
 *   {@link serveMcpOverHttp} hosts it on Streamable HTTP.
 * - {@link mcpExecutor}: an MCP server's tools as an A2A agent; {@link toolsCard} its card.
 */
export { createMcpServerFromAgent, type AgentMcpServerOptions } from './agent-server.js';
export { serveMcpOverHttp, type McpHttpEndpoint, type McpHttpOptions } from './http-host.js';
export { mcpExecutor, type McpExecutorOptions } from './mcp-executor.js';
export { listAllTools, toolSkill, toolsCard, type BridgeCard } from './tool-skills.js';
export { connectMcpServer, type McpServerTarget } from './connect.js';
export { skillTools, SKILL_INPUT_SCHEMA, type SkillTool, type SkillToolArguments } from './skill-tools.js';
export { MAX_RESULT_BYTES, UnrepresentableContentError } from './content.js';
