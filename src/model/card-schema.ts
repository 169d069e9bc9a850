/** The proto's agent card and its parts (interfaces, skills, security schemes) as TypeBox schemas. */
import { Type, type Static } from '@sinclair/typebox';
import { OneOf, OptStr, Str, StrList, StringMap, Struct } from './schema-kit.js';

// ---- agent card ----------------------------------------------------------------------

/** TypeBox schema of `AgentInterface`: validates its ProtoJSON form. */
export const AgentInterface = Type.Object(
  {
    url: Type.String({ minLength: 1 }),
    protocolBinding: Type.String({ minLength: 1 }),
    tenant: OptStr(),
    protocolVersion: Type.String({ minLength: 1 }),
  },
  { $id: 'AgentInterface' },
);
/** Where and how the agent is reached: a URL, a binding, a protocol version. */
export type AgentInterface = Static<typeof AgentInterface>;

/** TypeBox schema of `AgentProvider`: validates its ProtoJSON form. */
export const AgentProvider = Type.Object({ url: Str(), organization: Str() }, { $id: 'AgentProvider' });
/** The organization behind an agent. */
export type AgentProvider = Static<typeof AgentProvider>;

/** TypeBox schema of `AgentExtension`: validates its ProtoJSON form. */
export const AgentExtension = Type.Object(
  {
    uri: OptStr(),
    description: OptStr(),
    required: Type.Optional(Type.Boolean()),
    params: Type.Optional(Struct()),
  },
  { $id: 'AgentExtension' },
);
/** A protocol extension the agent supports. */
export type AgentExtension = Static<typeof AgentExtension>;

/** TypeBox schema of `AgentCapabilities`: validates its ProtoJSON form. */
export const AgentCapabilities = Type.Object(
  {
    streaming: Type.Optional(Type.Boolean()),
    pushNotifications: Type.Optional(Type.Boolean()),
    extensions: Type.Optional(Type.Array(AgentExtension)),
    extendedAgentCard: Type.Optional(Type.Boolean()),
  },
  { $id: 'AgentCapabilities' },
);
/** Optional features the agent really offers. */
export type AgentCapabilities = Static<typeof AgentCapabilities>;

/** TypeBox schema of `StringList`: validates its ProtoJSON form. */
export const StringList = Type.Object({ list: StrList() }, { $id: 'StringList' });
/** A list of strings (the proto's wrapper, used by security requirements). */
export type StringList = Static<typeof StringList>;

/** TypeBox schema of `SecurityRequirement`: validates its ProtoJSON form. */
export const SecurityRequirement = Type.Object(
  { schemes: Type.Optional(Type.Record(Type.String(), StringList)) },
  { $id: 'SecurityRequirement' },
);
/** Schemes that must all be satisfied (the array of requirements lists alternatives). */
export type SecurityRequirement = Static<typeof SecurityRequirement>;

/** TypeBox schema of `AgentSkill`: validates its ProtoJSON form. */
export const AgentSkill = Type.Object(
  {
    id: Type.String({ minLength: 1 }),
    name: Str(),
    description: Str(),
    tags: Type.Array(Type.String()),
    examples: StrList(),
    inputModes: StrList(),
    outputModes: StrList(),
    securityRequirements: Type.Optional(Type.Array(SecurityRequirement)),
  },
  { $id: 'AgentSkill' },
);
/** Something the agent can do. */
export type AgentSkill = Static<typeof AgentSkill>;

/** TypeBox schema of `AgentCardSignature`: validates its ProtoJSON form. */
export const AgentCardSignature = Type.Object(
  {
    protected: Type.String({ minLength: 1 }),
    signature: Type.String({ minLength: 1 }),
    header: Type.Optional(Struct()),
  },
  { $id: 'AgentCardSignature' },
);
/** A detached JWS over the canonical card (spec 8.4). */
export type AgentCardSignature = Static<typeof AgentCardSignature>;

/** TypeBox schema of `APIKeySecurityScheme`: validates its ProtoJSON form. */
export const APIKeySecurityScheme = Type.Object(
  { description: OptStr(), location: Type.String({ minLength: 1 }), name: Type.String({ minLength: 1 }) },
  { $id: 'APIKeySecurityScheme' },
);
/** An API key security scheme: where the key travels and under which name. */
export type APIKeySecurityScheme = Static<typeof APIKeySecurityScheme>;
/** TypeBox schema of `HTTPAuthSecurityScheme`: validates its ProtoJSON form. */
export const HTTPAuthSecurityScheme = Type.Object(
  { description: OptStr(), scheme: Type.String({ minLength: 1 }), bearerFormat: OptStr() },
  { $id: 'HTTPAuthSecurityScheme' },
);
/** An HTTP authentication security scheme (`Bearer`, `Basic`, ...). */
export type HTTPAuthSecurityScheme = Static<typeof HTTPAuthSecurityScheme>;

/** TypeBox schema of `AuthorizationCodeOAuthFlow`: validates its ProtoJSON form. */
export const AuthorizationCodeOAuthFlow = Type.Object({
  authorizationUrl: Str(),
  tokenUrl: Str(),
  refreshUrl: OptStr(),
  scopes: StringMap(),
  pkceRequired: Type.Optional(Type.Boolean()),
});
/** TypeBox schema of `ClientCredentialsOAuthFlow`: validates its ProtoJSON form. */
export const ClientCredentialsOAuthFlow = Type.Object({
  tokenUrl: Str(),
  refreshUrl: OptStr(),
  scopes: StringMap(),
});
/** TypeBox schema of `ImplicitOAuthFlow`: validates its ProtoJSON form. */
export const ImplicitOAuthFlow = Type.Object({
  authorizationUrl: OptStr(),
  refreshUrl: OptStr(),
  scopes: Type.Optional(StringMap()),
});
/** TypeBox schema of `PasswordOAuthFlow`: validates its ProtoJSON form. */
export const PasswordOAuthFlow = Type.Object({
  tokenUrl: OptStr(),
  refreshUrl: OptStr(),
  scopes: Type.Optional(StringMap()),
});
/** TypeBox schema of `DeviceCodeOAuthFlow`: validates its ProtoJSON form. */
export const DeviceCodeOAuthFlow = Type.Object({
  deviceAuthorizationUrl: Str(),
  tokenUrl: Str(),
  refreshUrl: OptStr(),
  scopes: StringMap(),
});

/** Exactly one OAuth 2.0 flow (`implicit` and `password` are deprecated: read, never emit). */
export const OAuthFlows = OneOf(
  {
    authorizationCode: AuthorizationCodeOAuthFlow,
    clientCredentials: ClientCredentialsOAuthFlow,
    implicit: ImplicitOAuthFlow,
    password: PasswordOAuthFlow,
    deviceCode: DeviceCodeOAuthFlow,
  },
  {},
  { $id: 'OAuthFlows' },
);
export type OAuthFlows = Static<typeof OAuthFlows>;

/** TypeBox schema of `OAuth2SecurityScheme`: validates its ProtoJSON form. */
export const OAuth2SecurityScheme = Type.Object(
  { description: OptStr(), flows: OAuthFlows, oauth2MetadataUrl: OptStr() },
  { $id: 'OAuth2SecurityScheme' },
);
/** An OAuth 2.0 security scheme and its flow. */
export type OAuth2SecurityScheme = Static<typeof OAuth2SecurityScheme>;
/** TypeBox schema of `OpenIdConnectSecurityScheme`: validates its ProtoJSON form. */
export const OpenIdConnectSecurityScheme = Type.Object(
  { description: OptStr(), openIdConnectUrl: Type.String({ minLength: 1 }) },
  { $id: 'OpenIdConnectSecurityScheme' },
);
/** An OpenID Connect security scheme: the URL of its discovery document. */
export type OpenIdConnectSecurityScheme = Static<typeof OpenIdConnectSecurityScheme>;
/** TypeBox schema of `MutualTlsSecurityScheme`: validates its ProtoJSON form. */
export const MutualTlsSecurityScheme = Type.Object(
  { description: OptStr() },
  { $id: 'MutualTlsSecurityScheme' },
);
/** A mutual TLS security scheme: the caller presents a client certificate. */
export type MutualTlsSecurityScheme = Static<typeof MutualTlsSecurityScheme>;

/** One declared authentication scheme: exactly one member. */
export const SecurityScheme = OneOf(
  {
    apiKeySecurityScheme: APIKeySecurityScheme,
    httpAuthSecurityScheme: HTTPAuthSecurityScheme,
    oauth2SecurityScheme: OAuth2SecurityScheme,
    openIdConnectSecurityScheme: OpenIdConnectSecurityScheme,
    mtlsSecurityScheme: MutualTlsSecurityScheme,
  },
  {},
  { $id: 'SecurityScheme' },
);
export type SecurityScheme = Static<typeof SecurityScheme>;

/** An agent's self-description, served at `/.well-known/agent-card.json`. */
export const AgentCard = Type.Object(
  {
    name: Str(),
    description: Str(),
    supportedInterfaces: Type.Array(AgentInterface),
    provider: Type.Optional(AgentProvider),
    version: Str(),
    documentationUrl: OptStr(),
    capabilities: AgentCapabilities,
    securitySchemes: Type.Optional(Type.Record(Type.String(), SecurityScheme)),
    securityRequirements: Type.Optional(Type.Array(SecurityRequirement)),
    defaultInputModes: Type.Array(Type.String()),
    defaultOutputModes: Type.Array(Type.String()),
    skills: Type.Array(AgentSkill),
    signatures: Type.Optional(Type.Array(AgentCardSignature)),
    iconUrl: OptStr(),
  },
  { $id: 'AgentCard' },
);
export type AgentCard = Static<typeof AgentCard>;
