/**
 * The card source: builds the public card for the base URL the server is reached at (fixed by
 * `publicUrl` or the listen address, else the request's own), serves it with its validators,
 * and completes an extended card from the public one.
 */
import { A2AConfigError } from '../errors/config-errors.js';
import type { AgentCard } from '../model/schema.js';
import {
  buildAgentCard,
  checkCardConfig,
  validateAgentCard,
  type AgentCardConfig,
  type CardFacts,
} from './card/build.js';
import { CardResource } from './card/serve.js';
import type { ExtendedCardConfig } from './options.js';

/** A host as it goes in a URL or a gRPC target: wildcard addresses become `localhost`, IPv6 is bracketed. */
export function formatHost(host: string): string {
  if (host === '' || host === '0.0.0.0' || host === '::') return 'localhost';
  return host.includes(':') ? `[${host}]` : host;
}

/** Builds the card for a base URL, serves it, and remembers the last few bases. */
export class CardSource {
  private readonly byBase = new Map<string, CardResource>();
  private fixedBase: string | undefined;
  private grpcTarget: string | undefined;
  private current: CardResource;
  /** The card's Last-Modified: when its content was last (re)built, stable until then. */
  private modifiedAt = new Date();
  /** Signed resources of built ones (`sign` option); a rebuilt card is signed again. */
  private readonly signed = new WeakMap<CardResource, Promise<CardResource>>();

  constructor(
    private readonly config: AgentCardConfig,
    private readonly facts: Omit<CardFacts, 'baseUrl' | 'grpcTarget'>,
    publicUrl: string | undefined,
    grpc: { port: number; host?: string } | undefined,
    /** Signs a built card (spec 8.4); the signed card is what is served. */
    private readonly sign?: (card: AgentCard) => Promise<AgentCard>,
  ) {
    checkCardConfig(config);
    if (publicUrl !== undefined) {
      let parsed: URL;
      try {
        parsed = new URL(publicUrl);
      } catch {
        throw new A2AConfigError(
          'A2A_CONFIG_INVALID_OPTION',
          `publicUrl ${JSON.stringify(publicUrl)} is not an absolute URL`,
        );
      }
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
        throw new A2AConfigError(
          'A2A_CONFIG_INVALID_OPTION',
          `publicUrl must be http: or https:, not ${parsed.protocol}`,
        );
      }
      this.fixedBase = publicUrl.replace(/\/+$/, '');
    }
    if (grpc) {
      const host = grpc.host ?? (this.fixedBase ? new URL(this.fixedBase).hostname : 'localhost');
      this.grpcTarget = `${formatHost(host)}:${grpc.port}`;
    }
    this.current = this.build(this.fixedBase ?? 'http://localhost');
  }

  private build(baseUrl: string, fromRequest = false): CardResource {
    const card = buildAgentCard(this.config, {
      ...this.facts,
      baseUrl,
      ...(this.grpcTarget ? { grpcTarget: this.grpcTarget } : {}),
    });
    validateAgentCard(card);
    return new CardResource(card, this.modifiedAt, undefined, fromRequest);
  }

  /** True when cards are signed but no URL is configured yet (`publicUrl`, or the listen address). */
  signsWithoutBase(): boolean {
    return this.sign !== undefined && this.fixedBase === undefined;
  }

  /** Called once listening: the listen URL becomes the base unless publicUrl was given. */
  listening(url: string, grpcTarget: string | undefined): void {
    if (grpcTarget) this.grpcTarget = grpcTarget;
    this.fixedBase ??= url;
    this.byBase.clear();
    this.modifiedAt = new Date();
    this.current = this.build(this.fixedBase);
  }

  /** Resolves once the current card is signed (at once without signing); rejects if signing fails. */
  async ready(): Promise<void> {
    if (this.sign) await this.signedResource(this.current);
  }

  /**
   * The resource to serve: `resource` itself, or its signed form with the `sign` option. A card
   * built from a request's Host is never signed: that would sign whatever endpoints a caller
   * names (a signing oracle, SRV-TRUST-6); `createA2AServer` refuses such a mount at once.
   */
  served(resource: CardResource): CardResource | Promise<CardResource> {
    if (!this.sign) return resource;
    if (resource.fromRequest) {
      return Promise.reject(
        new A2AConfigError(
          'A2A_CONFIG_INVALID_OPTION',
          'sign needs publicUrl when the server is mounted: a signed card is built only from configured URLs',
        ),
      );
    }
    return this.signedResource(resource);
  }

  private signedResource(resource: CardResource): Promise<CardResource> {
    let signed = this.signed.get(resource);
    if (!signed) {
      const modifiedAt = this.modifiedAt;
      signed = this.sign!(resource.card).then((card) => new CardResource(card, modifiedAt));
      this.signed.set(resource, signed);
    }
    return signed;
  }

  /** The card (unsigned) as served (the handler reads capabilities from it). */
  card(): AgentCard {
    return this.current.card;
  }

  /** The resource to serve for a request whose own base URL is `requestBase` (no fixed base yet). */
  resourceFor(requestBase: () => string | undefined): CardResource {
    if (this.fixedBase !== undefined) return this.current;
    const base = requestBase();
    if (base === undefined) return this.current;
    let resource = this.byBase.get(base);
    if (!resource) {
      if (this.byBase.size >= 16) this.byBase.clear();
      resource = this.build(base, true);
      this.byBase.set(base, resource);
    }
    return resource;
  }
}

/** The extended card from its config: interfaces, capabilities and missing modes from the public card. */
export function completeExtendedCard(config: ExtendedCardConfig, publicCard: AgentCard): AgentCard {
  const given = config as Partial<AgentCard> & AgentCardConfig;
  return {
    name: given.name,
    description: given.description,
    supportedInterfaces: publicCard.supportedInterfaces,
    ...(given.provider ? { provider: given.provider } : {}),
    version: given.version,
    ...(given.documentationUrl !== undefined ? { documentationUrl: given.documentationUrl } : {}),
    capabilities: {
      ...publicCard.capabilities,
      ...(given.extensions ? { extensions: given.extensions } : {}),
    },
    ...(given.securitySchemes ? { securitySchemes: given.securitySchemes } : {}),
    ...(given.securityRequirements ? { securityRequirements: given.securityRequirements } : {}),
    defaultInputModes: given.defaultInputModes ?? publicCard.defaultInputModes,
    defaultOutputModes: given.defaultOutputModes ?? publicCard.defaultOutputModes,
    skills: given.skills,
    ...(given.signatures ? { signatures: given.signatures } : {}),
    ...(given.iconUrl !== undefined ? { iconUrl: given.iconUrl } : {}),
  };
}
