/**
 * Builds the public Agent Card from what the author writes ({@link AgentCardConfig}) and what the
 * server really enables, and refuses a card that is invalid or would lie (SRV-CARD-2..7, N4).
 */
import { DRAFT_PROTOCOL_VERSION, GENERATION_EXTENSION } from '../../model/draft.js';
import { PROTOCOL_VERSION } from '../../model/operations.js';
import { A2AConfigError } from '../../errors/config-errors.js';
import {
  AgentCard as AgentCardSchema,
  type AgentCard,
  type AgentCardSignature,
  type AgentExtension,
  type AgentInterface,
  type AgentProvider,
  type AgentSkill,
  type SecurityRequirement,
  type SecurityScheme,
} from '../../model/schema.js';
import { compile, formatViolations } from '../../model/validate.js';
import { PUSH_SIGNING_EXTENSION } from '../../core/push/notification-signing.js'; // PUSH HOOK (issue 12)
// v0.3 compatibility (issue 14): the card's v0.3 interfaces and legacy fields.
import { legacyCardFields, v03Interfaces } from '../../bindings/compat-v03/card.js';

/** The Agent Card fields an author writes; interfaces and capability flags are derived. */
export interface AgentCardConfig {
  /** Human-readable name. */
  name: string;
  /** What the agent does. */
  description: string;
  /** The agent's own version (not the protocol's). */
  version: string;
  /** What the agent can do; at least one, each with at least one tag. */
  skills: AgentSkill[];
  provider?: AgentProvider;
  documentationUrl?: string;
  iconUrl?: string;
  /** Media types the agent accepts. @default ['text/plain'] */
  defaultInputModes?: string[];
  /** Media types the agent produces. @default ['text/plain'] */
  defaultOutputModes?: string[];
  securitySchemes?: Record<string, SecurityScheme>;
  securityRequirements?: SecurityRequirement[];
  /** Protocol extensions the agent supports (`capabilities.extensions`). */
  extensions?: AgentExtension[];
  /** Detached JWS signatures, when the card is signed elsewhere. */
  signatures?: AgentCardSignature[];
}

/** What is really enabled, from which the derived card fields follow. */
export interface CardFacts {
  /** Base URL of the HTTP bindings, without a trailing slash (`https://agent.example.com`). */
  baseUrl: string;
  /** Serve JSON-RPC at `{baseUrl}/a2a/jsonrpc`. */
  jsonrpc: boolean;
  /** Serve HTTP+JSON at `{baseUrl}/a2a/rest`. */
  rest: boolean;
  /** gRPC target `host:port`, when gRPC is on. */
  grpcTarget?: string;
  streaming: boolean;
  pushNotifications: boolean;
  extendedAgentCard: boolean;
  /** PUSH HOOK (issue 12): path of the push-signature JWKS below the base URL, named on the card (G15). */
  pushJwksPath?: string;
  /** v0.3 compatibility is on: list the v0.3 interfaces and add the legacy v0.3 fields (SRV-COMPAT-6). */
  compatV03?: boolean;
  /**
   * The A2A 1.1 draft support is on (GEN-1): the card declares the generation extension, and
   * lists the interfaces again with `protocolVersion: "1.1"` when `advertiseDraftVersion`.
   */
  generation?: { readonly advertiseDraftVersion: boolean };
}

/** Path of the JSON-RPC endpoint below the base URL. */
export const JSONRPC_PATH = '/a2a/jsonrpc';
/** Root of the REST binding below the base URL. */
export const REST_ROOT = '/a2a/rest';
/** The well-known card path (spec 8.2). */
export const WELL_KNOWN_CARD_PATH = '/.well-known/agent-card.json';

/** Interfaces in preference order: JSON-RPC, HTTP+JSON, then gRPC (SRV-CARD-3). */
export function supportedInterfaces(facts: CardFacts): AgentInterface[] {
  const out: AgentInterface[] = [];
  if (facts.jsonrpc) {
    out.push({
      url: facts.baseUrl + JSONRPC_PATH,
      protocolBinding: 'JSONRPC',
      protocolVersion: PROTOCOL_VERSION,
    });
  }
  if (facts.rest) {
    out.push({
      url: facts.baseUrl + REST_ROOT,
      protocolBinding: 'HTTP+JSON',
      protocolVersion: PROTOCOL_VERSION,
    });
  }
  if (facts.grpcTarget) {
    out.push({ url: facts.grpcTarget, protocolBinding: 'GRPC', protocolVersion: PROTOCOL_VERSION });
  }
  return out;
}

/** PUSH HOOK (issue 12): the configured extensions, plus the push-signature one (G15) when signing is on. */
function extensionsOf(config: AgentCardConfig, facts: CardFacts): { extensions?: AgentExtension[] } {
  const extensions = [...(config.extensions ?? [])];
  if (facts.pushNotifications && facts.pushJwksPath !== undefined) {
    extensions.push({
      uri: PUSH_SIGNING_EXTENSION,
      description:
        'Push notifications carry a JWT (X-A2A-Notification-Signature) over the body SHA-256; verify it with this JWKS.',
      required: false,
      params: { jwksUrl: `${facts.baseUrl}${facts.pushJwksPath}` },
    });
  }
  if (facts.generation) {
    extensions.push({
      uri: GENERATION_EXTENSION,
      description:
        'A2A 1.1 draft (dev-1.1): task generation, long-polling GetTask, ifGenerationMatch, stream resumption with Last-Event-ID.',
      required: false,
    });
  }
  return extensions.length > 0 ? { extensions } : {};
}

/** The card, fields in proto order, optional fields only when set. */
export function buildAgentCard(config: AgentCardConfig, facts: CardFacts): AgentCard {
  const v1Only = supportedInterfaces(facts);
  // GEN-1: the 1.1 entries follow the 1.0 ones (same URLs), only when the operator asks for them.
  const v1Interfaces = facts.generation?.advertiseDraftVersion
    ? [...v1Only, ...v1Only.map((i) => ({ ...i, protocolVersion: DRAFT_PROTOCOL_VERSION }))]
    : v1Only;
  const card: AgentCard = {
    name: config.name,
    description: config.description,
    // v0.3 compatibility: the v0.3 entries follow the v1.0 ones (same URLs, routed by version).
    supportedInterfaces: facts.compatV03 ? [...v1Interfaces, ...v03Interfaces(v1Only)] : v1Interfaces,
    ...(config.provider ? { provider: config.provider } : {}),
    version: config.version,
    ...(config.documentationUrl !== undefined ? { documentationUrl: config.documentationUrl } : {}),
    capabilities: {
      streaming: facts.streaming,
      pushNotifications: facts.pushNotifications,
      ...extensionsOf(config, facts), // PUSH HOOK (issue 12): was config.extensions only
      extendedAgentCard: facts.extendedAgentCard,
    },
    ...(config.securitySchemes ? { securitySchemes: config.securitySchemes } : {}),
    ...(config.securityRequirements ? { securityRequirements: config.securityRequirements } : {}),
    defaultInputModes: config.defaultInputModes ?? ['text/plain'],
    defaultOutputModes: config.defaultOutputModes ?? ['text/plain'],
    skills: config.skills,
    ...(config.signatures ? { signatures: config.signatures } : {}),
    ...(config.iconUrl !== undefined ? { iconUrl: config.iconUrl } : {}),
  };
  // v0.3 compatibility: legacy top-level fields beside the v1.0 ones (v1.0 readers ignore them).
  // They are added before any signing would happen, so a future signer covers them.
  if (facts.compatV03) Object.assign(card, legacyCardFields(card));
  return card;
}

const checkCard = compile(AgentCardSchema);

/** Thrown by {@link validateAgentCard}: the message lists every problem. */
export class InvalidAgentCardError extends A2AConfigError {
  declare readonly code: 'A2A_CONFIG_INVALID_CARD';
  constructor(readonly problems: string[]) {
    super('A2A_CONFIG_INVALID_CARD', `Invalid agent card: ${problems.join('; ')}`);
  }
}

/**
 * Checks a card against the schema and our own-card rules (N4: at least one skill, at least one
 * tag per skill, non-empty modes and interfaces; D11: no deprecated OAuth flows).
 */
export function validateAgentCard(card: AgentCard): void {
  const problems: string[] = [];
  const checked = checkCard.check(card, 16);
  if (!checked.ok) problems.push(formatViolations(checked.violations));
  const c = card as Partial<AgentCard>;
  if (typeof c.name === 'string' && c.name.trim() === '') problems.push('name: must not be empty');
  if (Array.isArray(c.supportedInterfaces) && c.supportedInterfaces.length === 0) {
    problems.push('supportedInterfaces: at least one binding must be enabled');
  }
  if (Array.isArray(c.defaultInputModes) && c.defaultInputModes.length === 0) {
    problems.push('defaultInputModes: needs at least one media type');
  }
  if (Array.isArray(c.defaultOutputModes) && c.defaultOutputModes.length === 0) {
    problems.push('defaultOutputModes: needs at least one media type');
  }
  if (Array.isArray(c.skills)) {
    if (c.skills.length === 0) problems.push('skills: needs at least one skill');
    const ids = new Set<string>();
    c.skills.forEach((skill, i) => {
      if (!skill || typeof skill !== 'object') return;
      if (Array.isArray(skill.tags) && skill.tags.length === 0)
        problems.push(`skills[${i}].tags: needs at least one tag`);
      if (typeof skill.id === 'string') {
        if (ids.has(skill.id)) problems.push(`skills[${i}].id: duplicate id ${JSON.stringify(skill.id)}`);
        ids.add(skill.id);
      }
    });
  }
  for (const [name, scheme] of Object.entries(c.securitySchemes ?? {})) {
    const flows = (scheme as { oauth2SecurityScheme?: { flows?: Record<string, unknown> } })
      .oauth2SecurityScheme?.flows;
    if (flows && (flows.implicit !== undefined || flows.password !== undefined)) {
      problems.push(
        `securitySchemes.${name}: the implicit and password OAuth flows are deprecated; use another flow`,
      );
    }
  }
  for (const [i, ext] of (c.capabilities?.extensions ?? []).entries()) {
    if (!ext.uri) problems.push(`capabilities.extensions[${i}].uri: required`);
  }
  if (problems.length > 0) throw new InvalidAgentCardError(problems);
}

/**
 * Refuses configuration that tries to set derived fields, which would let the card lie about
 * what is enabled (SRV-CARD-7).
 */
export function checkCardConfig(config: AgentCardConfig): void {
  const raw = config as unknown as Record<string, unknown>;
  const problems: string[] = [];
  if (raw.supportedInterfaces !== undefined) {
    problems.push('supportedInterfaces is derived from the enabled bindings; set publicUrl instead');
  }
  if (raw.capabilities !== undefined) {
    problems.push(
      'capabilities are derived from the server options (streaming, pushNotifications, extendedCard); put extensions in `extensions`',
    );
  }
  if (raw.protocolVersion !== undefined || raw.url !== undefined) {
    problems.push('protocolVersion and url are v0.3 card fields; they are derived');
  }
  if (problems.length > 0) throw new InvalidAgentCardError(problems);
}
