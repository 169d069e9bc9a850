/**
 * `a2a-kit/ai-sdk`: the Vercel AI SDK (`ai`, an optional peer dependency) and A2A.
 * - {@link aiSdkExecutor}: an AI SDK model (any provider) as an A2A AgentExecutor.
 * - {@link a2aTool}: an A2A agent as an AI SDK tool, for a model to delegate to.
 */
export { aiSdkExecutor, askUserTool, type AiSdkExecutorOptions } from './executor.js';
export { a2aTool, type A2AToolInput, type A2AToolOptions, type A2AToolOutput } from './a2a-tool.js';
