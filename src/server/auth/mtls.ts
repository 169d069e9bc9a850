/**
 * Mutual TLS (`mtlsSecurityScheme`): the client certificate, verified by the TLS layer against
 * the server's client CA, names the principal. The listener must request certificates
 * (`requestCert: true`) and may leave `rejectUnauthorized: false` so that a bad certificate
 * gets a protocol error instead of a failed handshake.
 */
import type { SecurityScheme } from '../../model/schema.js';
import type { AuthRequest, PeerCertificate } from './request.js';
import { authenticated, refused, type AuthOutcome, type AuthPrincipal, type Authenticator } from './types.js';

/** Options of {@link createMutualTlsAuthenticator}. */
export interface MutualTlsAuthenticatorOptions {
  /** Scheme name on the card. @default 'mtls' */
  name?: string;
  /**
   * How the certificate becomes the principal: `subject` (the whole DN), `cn` (the common
   * name), or a function (return `undefined` to refuse). @default 'subject'
   */
  principal?: 'subject' | 'cn' | ((cert: PeerCertificate) => AuthPrincipal | undefined);
  description?: string;
}

/** An authenticator for client certificates. */
export function createMutualTlsAuthenticator(options: MutualTlsAuthenticatorOptions = {}): Authenticator {
  const name = options.name ?? 'mtls';
  const mapping = options.principal ?? 'subject';
  const scheme: SecurityScheme = {
    mtlsSecurityScheme: options.description ? { description: options.description } : {},
  };
  return {
    name,
    scheme,
    async authenticate(request: AuthRequest): Promise<AuthOutcome> {
      const cert = request.peerCertificate;
      if (!cert) return refused('missing', name, 'a client certificate is required');
      if (!cert.authorized) {
        return refused('invalid', name, 'the client certificate is not trusted');
      }
      let principal: AuthPrincipal | undefined;
      if (typeof mapping === 'function') principal = mapping(cert);
      else {
        const id = mapping === 'cn' ? cert.commonName : cert.subject;
        principal = id
          ? {
              id,
              claims: { subject: cert.subject, issuer: cert.issuer, fingerprint256: cert.fingerprint256 },
            }
          : undefined;
      }
      if (!principal) return refused('invalid', name, 'the client certificate does not name a principal');
      return authenticated({ ...principal, schemes: [name] });
    },
  };
}
