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

/**
 * `out[key] = v` as an own property whatever the key: a received `"__proto__"` member must stay
 * a member (and be signed), not become the object's prototype.
 */
function setOwn(out: Json, key: string, v: unknown): void {
  Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
}

function isDefault(v: unknown): boolean {
  if (v === '' || v === false || v === 0 || v === null || v === undefined) return true;
  if (Array.isArray(v)) return v.length === 0;
  return isObject(v) && Object.keys(v).length === 0;
}

function applyShape(value: unknown, shape: Shape | undefined, map: boolean): unknown {
  if (Array.isArray(value)) return value.map((v) => applyShape(v, shape, false));
  if (!isObject(value) || !shape) return value;
  if (map) {
    const out: Json = {};
    for (const [k, v] of Object.entries(value)) setOwn(out, k, applyShape(v, shape, false));
    return out;
  }
  return stripObject(value, shape);
}

function stripObject(value: Json, shape: Shape): Json {
  const out: Json = {};
  for (const [key, v] of Object.entries(value)) {
    const field = Object.hasOwn(shape, key) ? shape[key] : undefined; // not `constructor`
    if (!field) {
      setOwn(out, key, v); // unknown fields are signed as they are
      continue;
    }
    if (v === undefined || v === null) continue;
    if (field.presence === 'plain' && isDefault(v)) continue;
    setOwn(out, key, field.presence === 'struct' ? v : applyShape(v, field.of, field.map ?? false));
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
  return stripObject(withoutSignatures(card), AgentCardShape);
}

const isEmptyValue = (v: unknown): boolean =>
  (Array.isArray(v) && v.length === 0) || (isObject(v) && Object.keys(v).length === 0);

/**
 * The literal 8.4.2 "remove defaults" some signers apply (CLI-SIGN-4). `signed` drops object members
 * whose value is `""`, `null`, `[]` or `{}`, and members and list elements that became empty
 * through that removal (a requirement whose scope lists were all empty), at any depth. A value
 * empty as received inside a list stays (`[{}]` is a list of one requirement), and so do unknown
 * fields: what is added to a signed card changes the payload. `kept` is the same card with the
 * empty members put back (`scopes: {}` is REQUIRED), which is what a verifier hands on.
 */
function dropEmptyMembers(value: unknown): { signed: unknown; kept: unknown } {
  if (Array.isArray(value)) {
    const signed: unknown[] = [];
    const kept: unknown[] = [];
    for (const v of value) {
      if ((!isObject(v) && !Array.isArray(v)) || isEmptyValue(v)) {
        signed.push(v); // a scalar, or empty as received: content, kept
        kept.push(v);
        continue;
      }
      const c = dropEmptyMembers(v);
      if (isEmptyValue(c.signed)) continue;
      signed.push(c.signed);
      kept.push(c.kept);
    }
    return { signed, kept };
  }
  if (!isObject(value)) return { signed: value, kept: value };
  const signed: Json = {};
  const kept: Json = {};
  for (const [k, v] of Object.entries(value)) {
    if (v === null || v === undefined) continue;
    if (v === '' || isEmptyValue(v)) {
      setOwn(kept, k, v);
      continue;
    }
    const c = dropEmptyMembers(v);
    if (isEmptyValue(c.signed)) continue;
    setOwn(signed, k, c.signed);
    setOwn(kept, k, c.kept);
  }
  return { signed, kept };
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

/** One reading of a received card: the object a signature may cover, and its JCS text. */
export interface CardPayloadCandidate {
  form: CardPayloadForm;
  /**
   * The card as this reading sees it, without `signatures`: what a verified signature covers
   * (for `empty-removed`, with the empty members it set aside, which mean their default).
   */
  value: Json;
  payload: string;
}

/**
 * The payloads a verifier tries, in order (N12, CLI-SIGN-4): the received JSON minus `signatures`; the
 * same after the 8.4.1 rules; and, for signers that drop every empty member (the literal 8.4.2
 * reading, as `@a2a-js/sdk` 1.3 does), that form. Each reading only removes empty or default
 * values, never a list element or a field with content, so a field added after signing fails
 * every reading. Duplicates dropped.
 */
export function cardPayloadCandidates(card: Json): CardPayloadCandidate[] {
  const asReceived = withoutSignatures(card);
  const defaultsRemoved = cardWithoutDefaults(card);
  const emptyRemoved = dropEmptyMembers(defaultsRemoved);
  const forms: CardPayloadCandidate[] = [
    { form: 'as-received', value: asReceived, payload: canonicalJson(asReceived) },
    { form: 'defaults-removed', value: defaultsRemoved, payload: canonicalJson(defaultsRemoved) },
    {
      form: 'empty-removed',
      value: emptyRemoved.kept as Json,
      payload: canonicalJson(emptyRemoved.signed),
    },
  ];
  return forms.filter((f, i) => forms.findIndex((g) => g.payload === f.payload) === i);
}
