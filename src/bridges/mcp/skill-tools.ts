/**
 * An agent card's skills as MCP tool definitions: one tool per skill, named from the skill id
 * (reduced to the characters MCP tool names allow), described from the skill's description
 * and examples, taking the same input for every skill (the message, its data, the task and
 * context to continue).
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { AgentCard, AgentSkill } from '../../model/schema.js';

/** Longest tool name the bridge makes (MCP hosts commonly cap names at 64). */
const MAX_NAME = 64;

/** The input every skill tool takes. */
export const SKILL_INPUT_SCHEMA = {
  type: 'object',
  properties: {
    message: { type: 'string', description: 'The message for the agent (its text).' },
    data: {
      type: 'object',
      description: 'Optional structured input, sent to the agent as a data part.',
      additionalProperties: true,
    },
    taskId: {
      type: 'string',
      description: 'Continue this task: pass the taskId of an earlier call that asked for input.',
    },
    contextId: {
      type: 'string',
      description: 'Continue this conversation (the contextId of an earlier call).',
    },
  },
  required: ['message'],
} as const;

/** The arguments of a skill tool, checked. */
export interface SkillToolArguments {
  message: string;
  data?: Record<string, unknown>;
  taskId?: string;
  contextId?: string;
}

/** A skill and the tool that exposes it. */
export interface SkillTool {
  readonly skill: AgentSkill;
  readonly tool: Tool;
}

/** The tools of `card`, one per skill, with unique names. */
export function skillTools(card: AgentCard): SkillTool[] {
  const used = new Set<string>();
  return card.skills.map((skill) => {
    const name = uniqueName(toolName(skill.id), used);
    const examples = skill.examples?.length
      ? `\nExamples: ${skill.examples.map((e) => JSON.stringify(e)).join(', ')}`
      : '';
    const tool: Tool = {
      name,
      title: skill.name,
      description: `${skill.description}${examples}\n(Skill "${skill.id}" of the A2A agent "${card.name}".)`,
      inputSchema: SKILL_INPUT_SCHEMA as unknown as Tool['inputSchema'],
    };
    return { skill, tool };
  });
}

function toolName(id: string): string {
  const name = id.replace(/[^A-Za-z0-9_.-]+/g, '_').slice(0, MAX_NAME);
  return name.length > 0 ? name : 'skill';
}

function uniqueName(base: string, used: Set<string>): string {
  let name = base;
  for (let i = 2; used.has(name); i++) name = `${base.slice(0, MAX_NAME - String(i).length - 1)}_${i}`;
  used.add(name);
  return name;
}

/** `args` as {@link SkillToolArguments}, or the reason they are not. */
export function parseSkillArguments(args: unknown): SkillToolArguments | string {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return 'arguments must be an object';
  const a = args as Record<string, unknown>;
  if (typeof a.message !== 'string') return '"message" (a string) is required';
  if (a.data !== undefined && (a.data === null || typeof a.data !== 'object' || Array.isArray(a.data))) {
    return '"data" must be an object';
  }
  for (const key of ['taskId', 'contextId'] as const) {
    if (a[key] !== undefined && (typeof a[key] !== 'string' || a[key] === '')) {
      return `"${key}" must be a non-empty string`;
    }
  }
  if (a.message === '' && a.data === undefined) return '"message" is empty and there is no "data"';
  return {
    message: a.message,
    ...(a.data !== undefined ? { data: a.data as Record<string, unknown> } : {}),
    ...(a.taskId !== undefined ? { taskId: a.taskId as string } : {}),
    ...(a.contextId !== undefined ? { contextId: a.contextId as string } : {}),
  };
}
