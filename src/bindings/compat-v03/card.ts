/**
 * Agent cards across versions (SRV-COMPAT-6): the v0.3 interfaces and legacy top-level fields of
 * the one card served to both versions, a full v0.3 card for `agent/getAuthenticatedExtendedCard`,
 * and a v0.3 card read as a v1.0 one (client side).
 */
import type { AgentCard, AgentInterface, SecurityRequirement, SecurityScheme } from '../../model/schema.js';
import { isJson, type Json } from './content.js';
import {
  V03_PROTOCOL_VERSION,
  type V03AgentCard,
  type V03AgentInterface,
  type V03SecurityScheme,
} from './types.js';

/** The `protocolVersion` of the v0.3 entries in `supportedInterfaces`. */
export const V03_INTERFACE_VERSION = '0.3';

/** True for `0.3` and `0.3.x`. */
export function isV03Version(version: string | undefined): boolean {
  return version !== undefined && /^\s*0\.3(?:\.\d+)?\s*$/.test(version);
}

/**
 * The v0.3 entries of a card: the same URLs as the v1.0 ones (JSON-RPC and REST routed by
 * version, gRPC by package: `a2a.v1` beside `lf.a2a.v1` on the same port).
 */
export function v03Interfaces(v1: readonly AgentInterface[]): AgentInterface[] {
  return v1.map((i) => ({
    url: i.url,
    protocolBinding: i.protocolBinding,
    protocolVersion: V03_INTERFACE_VERSION,
  }));
}

/** The legacy top-level fields a v0.3 reader needs. */
export interface LegacyCardFields {
  protocolVersion: string;
  url: string;
  preferredTransport: string;
  additionalInterfaces: V03AgentInterface[];
  supportsAuthenticatedExtendedCard: boolean;
  /** The card's security requirements, in the same (oneof) form as its `securitySchemes`. */
  security?: SecurityRequirement[];
}

/**
 * The v0.3 top-level fields for a v1.0 card that lists v0.3 interfaces; `undefined` when it
 * lists none. `url`/`preferredTransport` name the first v0.3 interface, `additionalInterfaces`
 * all of them (as v0.3 asked).
 *
 * Note: card signing does not exist yet. When it does, these fields MUST be part of what is
 * signed, or the card MUST NOT carry them (SRV-COMPAT-6): a verifier rejects fields added after
 * signing.
 *
 * `security` copies `securityRequirements`, not the v0.3 `[{name: scopes}]` form: the card's
 * `securitySchemes` can only have one shape (the v1.0 oneof one), and v0.3 readers that see
 * oneof-shaped schemes (the v0.3 JS SDK) read the whole card as v0.3 ProtoJSON, where
 * `security` has the `{schemes: {name: {list}}}` form.
 */
export function legacyCardFields(card: AgentCard): LegacyCardFields | undefined {
  const v03 = card.supportedInterfaces.filter((i) => i.protocolVersion === V03_INTERFACE_VERSION);
  const first = v03[0];
  if (!first) return undefined;
  return {
    protocolVersion: V03_PROTOCOL_VERSION,
    url: first.url,
    preferredTransport: first.protocolBinding,
    additionalInterfaces: v03.map((i) => ({ url: i.url, transport: i.protocolBinding })),
    supportsAuthenticatedExtendedCard: card.capabilities.extendedAgentCard === true,
    ...(card.securityRequirements ? { security: card.securityRequirements } : {}),
  };
}

function requirementsToV03(
  list: readonly SecurityRequirement[] | undefined,
): Record<string, string[]>[] | undefined {
  return list?.map((r) =>
    Object.fromEntries(Object.entries(r.schemes ?? {}).map(([name, scopes]) => [name, scopes.list ?? []])),
  );
}

function schemeToV03(scheme: SecurityScheme): V03SecurityScheme | undefined {
  if (scheme.apiKeySecurityScheme) {
    const s = scheme.apiKeySecurityScheme;
    return {
      type: 'apiKey',
      in: s.location,
      name: s.name,
      ...(s.description ? { description: s.description } : {}),
    };
  }
  if (scheme.httpAuthSecurityScheme) {
    const s = scheme.httpAuthSecurityScheme;
    return {
      type: 'http',
      scheme: s.scheme,
      ...(s.bearerFormat ? { bearerFormat: s.bearerFormat } : {}),
      ...(s.description ? { description: s.description } : {}),
    };
  }
  if (scheme.oauth2SecurityScheme) {
    const s = scheme.oauth2SecurityScheme;
    return {
      type: 'oauth2',
      flows: s.flows as unknown as Record<string, unknown>,
      ...(s.oauth2MetadataUrl ? { oauth2MetadataUrl: s.oauth2MetadataUrl } : {}),
      ...(s.description ? { description: s.description } : {}),
    };
  }
  if (scheme.openIdConnectSecurityScheme) {
    const s = scheme.openIdConnectSecurityScheme;
    return {
      type: 'openIdConnect',
      openIdConnectUrl: s.openIdConnectUrl,
      ...(s.description ? { description: s.description } : {}),
    };
  }
  if (scheme.mtlsSecurityScheme) {
    const s = scheme.mtlsSecurityScheme;
    return { type: 'mutualTLS', ...(s.description ? { description: s.description } : {}) };
  }
  return undefined;
}

/** A v1.0 card as a complete v0.3 card (JSON-RPC form: `type` discriminators, `security` maps). */
export function cardToV03(card: AgentCard): V03AgentCard {
  const legacy = legacyCardFields(card);
  const first = card.supportedInterfaces[0];
  const schemes: Record<string, V03SecurityScheme> = {};
  for (const [name, scheme] of Object.entries(card.securitySchemes ?? {})) {
    const converted = schemeToV03(scheme);
    if (converted) schemes[name] = converted;
  }
  const security = requirementsToV03(card.securityRequirements);
  const { extendedAgentCard: _x, ...capabilities } = card.capabilities;
  return {
    protocolVersion: V03_PROTOCOL_VERSION,
    name: card.name,
    description: card.description,
    url: legacy?.url ?? first?.url ?? '',
    preferredTransport: legacy?.preferredTransport ?? first?.protocolBinding ?? 'JSONRPC',
    additionalInterfaces:
      legacy?.additionalInterfaces ??
      card.supportedInterfaces.map((i) => ({ url: i.url, transport: i.protocolBinding })),
    ...(card.provider ? { provider: card.provider } : {}),
    version: card.version,
    ...(card.documentationUrl !== undefined ? { documentationUrl: card.documentationUrl } : {}),
    ...(card.iconUrl !== undefined ? { iconUrl: card.iconUrl } : {}),
    capabilities: capabilities as V03AgentCard['capabilities'],
    ...(card.securitySchemes ? { securitySchemes: schemes } : {}),
    ...(security ? { security } : {}),
    defaultInputModes: card.defaultInputModes,
    defaultOutputModes: card.defaultOutputModes,
    skills: card.skills.map((s) => {
      const { securityRequirements, ...rest } = s;
      const skillSecurity = requirementsToV03(securityRequirements);
      return { ...rest, ...(skillSecurity ? { security: skillSecurity } : {}) };
    }),
    supportsAuthenticatedExtendedCard: card.capabilities.extendedAgentCard === true,
    ...(card.signatures ? { signatures: card.signatures } : {}),
  };
}

// ---- reading a v0.3 card (client side) -----------------------------------------------------

/** True when `raw` is a v0.3 card: it has `url` and no `supportedInterfaces`. */
export function isV03Card(raw: Json): boolean {
  return raw.supportedInterfaces === undefined && typeof raw.url === 'string';
}

const SCHEME_MEMBER: Readonly<Record<string, string>> = {
  apiKey: 'apiKeySecurityScheme',
  http: 'httpAuthSecurityScheme',
  oauth2: 'oauth2SecurityScheme',
  openIdConnect: 'openIdConnectSecurityScheme',
  mutualTLS: 'mtlsSecurityScheme',
};

function schemeFromV03(scheme: unknown): unknown {
  if (!isJson(scheme)) return scheme;
  const { type, in: location, ...rest } = scheme;
  const member = typeof type === 'string' ? SCHEME_MEMBER[type] : undefined;
  if (!member) return scheme; // already oneof-shaped (v0.3 ProtoJSON), or unknown: left to the validator
  return { [member]: location === undefined ? rest : { ...rest, location } };
}

/** `[{name: [scopes]}]` → `[{schemes: {name: {list: [scopes]}}}]`; the oneof form passes as is. */
function requirementsFromV03(list: unknown): unknown {
  if (!Array.isArray(list)) return list;
  return list.map((r) => {
    if (!isJson(r) || isJson(r.schemes)) return r;
    const schemes: Json = {};
    for (const [name, scopes] of Object.entries(r))
      schemes[name] = { list: Array.isArray(scopes) ? scopes : [] };
    return { schemes };
  });
}

/**
 * A v0.3 card as v1.0 JSON (validated afterwards): `url` + `preferredTransport` and
 * `additionalInterfaces` become `supportedInterfaces` marked with the card's `protocolVersion`;
 * security schemes and requirements take the v1.0 shapes; `supportsAuthenticatedExtendedCard`
 * (or `supportsExtendedAgentCard`, N16) becomes `capabilities.extendedAgentCard`.
 */
export function cardFromV03(v: Json): Json {
  const version =
    typeof v.protocolVersion === 'string' && v.protocolVersion !== '' ? v.protocolVersion : '0.3';
  const interfaces: AgentInterface[] = [];
  const seen = new Set<string>();
  const add = (url: unknown, binding: unknown): void => {
    if (typeof url !== 'string' || typeof binding !== 'string') return;
    const key = `${binding} ${url}`;
    if (seen.has(key)) return;
    seen.add(key);
    interfaces.push({ url, protocolBinding: binding, protocolVersion: version });
  };
  add(
    v.url,
    typeof v.preferredTransport === 'string' && v.preferredTransport !== ''
      ? v.preferredTransport
      : 'JSONRPC',
  );
  if (Array.isArray(v.additionalInterfaces)) {
    for (const i of v.additionalInterfaces) if (isJson(i)) add(i.url, i.transport);
  }
  const {
    url: _url,
    preferredTransport: _pt,
    additionalInterfaces: _ai,
    protocolVersion: _pv,
    supportsAuthenticatedExtendedCard,
    supportsExtendedAgentCard,
    security,
    securitySchemes,
    capabilities,
    skills,
    ...rest
  } = v;
  const out: Json = { ...rest, supportedInterfaces: interfaces };
  const caps: Json = isJson(capabilities) ? { ...capabilities } : {};
  delete caps.stateTransitionHistory;
  const extended = supportsAuthenticatedExtendedCard ?? supportsExtendedAgentCard;
  if (typeof extended === 'boolean') caps.extendedAgentCard = extended;
  out.capabilities = caps;
  if (isJson(securitySchemes)) {
    out.securitySchemes = Object.fromEntries(
      Object.entries(securitySchemes).map(([k, s]) => [k, schemeFromV03(s)]),
    );
  }
  if (security !== undefined) out.securityRequirements = requirementsFromV03(security);
  if (Array.isArray(skills)) {
    out.skills = skills.map((s) => {
      if (!isJson(s)) return s;
      const { security: skillSecurity, ...skill } = s;
      return skillSecurity === undefined
        ? skill
        : { ...skill, securityRequirements: requirementsFromV03(skillSecurity) };
    });
  }
  return out;
}
