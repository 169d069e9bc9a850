/**
 * What an Agent Card signature covers (spec 8.4.1, N12): the card without `signatures`,
 * after the proto field-presence rules, canonicalized with RFC 8785 (JCS). Shared by the
 * server's signer and the client's verifier.
 */
import canonicalize from 'canonicalize';

type Json = Record<string, unknown>;

/**
 * How a field behaves under 8.4.1: `required` is always kept; `optional` (proto3 `optional`)
 * is kept when present; `plain` is dropped at its default (`""`, `false`, `0`, `[]`, `{}`);
 * `message` (a singular message or oneof member) is kept when present; `struct` is kept as is.
 */
type Presence = 'required' | 'optional' | 'plain' | 'message' | 'struct';
interface Field {
  presence: Presence;
  /** Shape of the value (or of each element / map value). */
  of?: Shape;
  /** A map whose values are `of`. */
  map?: boolean;
}
type Shape = { readonly [field: string]: Field };

const req = (of?: Shape): Field => ({ presence: 'required', ...(of ? { of } : {}) });
const plain = (of?: Shape, map = false): Field => ({ presence: 'plain', ...(of ? { of } : {}), map });
const msg = (of: Shape): Field => ({ presence: 'message', of });
const OPT: Field = { presence: 'optional' };

const StringList: Shape = { list: plain() };
const SecurityRequirement: Shape = { schemes: plain(StringList, true) };
const scopes = { scopes: { presence: 'required', map: true } } as const satisfies Shape;
const OAuthFlows: Shape = {
  authorizationCode: msg({
    authorizationUrl: req(),
    tokenUrl: req(),
    refreshUrl: plain(),
    ...scopes,
    pkceRequired: plain(),
  }),
  clientCredentials: msg({ tokenUrl: req(), refreshUrl: plain(), ...scopes }),
  implicit: msg({ authorizationUrl: plain(), refreshUrl: plain(), scopes: plain(undefined, true) }),
  password: msg({ tokenUrl: plain(), refreshUrl: plain(), scopes: plain(undefined, true) }),
  deviceCode: msg({ deviceAuthorizationUrl: req(), tokenUrl: req(), refreshUrl: plain(), ...scopes }),
};
const SecurityScheme: Shape = {
  apiKeySecurityScheme: msg({ description: plain(), location: req(), name: req() }),
  httpAuthSecurityScheme: msg({ description: plain(), scheme: req(), bearerFormat: plain() }),
  oauth2SecurityScheme: msg({ description: plain(), flows: req(OAuthFlows), oauth2MetadataUrl: plain() }),
  openIdConnectSecurityScheme: msg({ description: plain(), openIdConnectUrl: req() }),
  mtlsSecurityScheme: msg({ description: plain() }),
};
const AgentCardShape: Shape = {
  name: req(),
  description: req(),
  supportedInterfaces: req({ url: req(), protocolBinding: req(), tenant: plain(), protocolVersion: req() }),
  provider: msg({ url: req(), organization: req() }),
  version: req(),
  documentationUrl: OPT,
  capabilities: req({
    streaming: OPT,
    pushNotifications: OPT,
    extensions: plain({
      uri: plain(),
      description: plain(),
      required: plain(),
      params: { presence: 'struct' },
    }),
    extendedAgentCard: OPT,
  }),
  securitySchemes: plain(SecurityScheme, true),
  securityRequirements: plain(SecurityRequirement),
  defaultInputModes: req(),
  defaultOutputModes: req(),
  skills: req({
    id: req(),
    name: req(),
    description: req(),
    tags: req(),
    examples: plain(),
    inputModes: plain(),
    outputModes: plain(),
    securityRequirements: plain(SecurityRequirement),
  }),
  iconUrl: OPT,
};

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function isDefault(v: unknown): boolean {
  if (v === '' || v === false || v === 0 || v === null || v === undefined) return true;
  if (Array.isArray(v)) return v.length === 0;
  return isObject(v) && Object.keys(v).length === 0;
}

function applyShape(value: unknown, shape: Shape | undefined, map: boolean, dropUnknown: boolean): unknown {
  if (Array.isArray(value)) return value.map((v) => applyShape(v, shape, false, dropUnknown));
  if (!isObject(value) || !shape) return value;
  if (map) {
    const out: Json = {};
    for (const [k, v] of Object.entries(value)) out[k] = applyShape(v, shape, false, dropUnknown);
    return out;
  }
  return stripObject(value, shape, dropUnknown);
}

function stripObject(value: Json, shape: Shape, dropUnknown: boolean): Json {
  const out: Json = {};
  for (const [key, v] of Object.entries(value)) {
    const field = shape[key];
    if (!field) {
      if (!dropUnknown) out[key] = v;
      continue;
    }
    if (v === undefined || v === null) continue;
    if (field.presence === 'plain' && isDefault(v)) continue;
    out[key] = field.presence === 'struct' ? v : applyShape(v, field.of, field.map ?? false, dropUnknown);
  }
  return out;
}

/** The card minus `signatures`, exactly as given. */
function withoutSignatures(card: Json): Json {
  const { signatures: _signatures, ...rest } = card;
  return rest;
}

/** The card minus `signatures` with the 8.4.1 presence rules applied (unknown fields kept). */
export function cardWithoutDefaults(card: Json): Json {
  return stripObject(withoutSignatures(card), AgentCardShape, false);
}

/** Drops `""`, `null`, `[]` and `{}` everywhere (the literal reading of 8.4.2 "remove defaults"). */
function dropEmpty(value: unknown): unknown {
  if (Array.isArray(value)) {
    const list = value.map(dropEmpty).filter((v) => v !== undefined);
    return list.length > 0 ? list : undefined;
  }
  if (isObject(value)) {
    const out: Json = {};
    for (const [k, v] of Object.entries(value)) {
      const c = dropEmpty(v);
      if (c !== undefined) out[k] = c;
    }
    return Object.keys(out).length > 0 ? out : undefined;
  }
  return value === '' || value === null || value === undefined ? undefined : value;
}

/** RFC 8785 canonical JSON text; throws on values JSON cannot carry (lone surrogates, NaN). */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('the value has no JSON representation');
  return text;
}

/** The payload a signer signs: JCS of the card after the 8.4.1 rules, without `signatures`. */
export function cardSigningPayload(card: Json): string {
  return canonicalJson(cardWithoutDefaults(card));
}

/** Which reading of the card a payload candidate follows. */
export type CardPayloadForm = 'as-received' | 'defaults-removed' | 'empty-removed';

/**
 * The payloads a verifier tries, in order (N12): the received JSON minus `signatures`; the
 * same after the 8.4.1 rules; and, for signers that drop every empty value and unknown
 * field (the literal 8.4.2 reading, as `@a2a-js/sdk` 1.3 does), that form. Duplicates dropped.
 */
export function cardPayloadCandidates(card: Json): { form: CardPayloadForm; payload: string }[] {
  const forms: { form: CardPayloadForm; payload: string }[] = [
    { form: 'as-received', payload: canonicalJson(withoutSignatures(card)) },
    { form: 'defaults-removed', payload: cardSigningPayload(card) },
    {
      form: 'empty-removed',
      payload: canonicalJson(dropEmpty(stripObject(withoutSignatures(card), AgentCardShape, true)) ?? {}),
    },
  ];
  return forms.filter((f, i) => forms.findIndex((g) => g.payload === f.payload) === i);
}
