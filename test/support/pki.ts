/** A throwaway PKI made with the openssl CLI for mutual-TLS tests (HTTPS and gRPC). */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export function hasOpenssl(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export interface Pki {
  ca: Buffer;
  serverKey: Buffer;
  serverCert: Buffer;
  client: { key: Buffer; cert: Buffer };
  stranger: { key: Buffer; cert: Buffer };
}

/** A test PKI (extensions from `NAME.ext`): CA -> server cert (127.0.0.1) and client cert (CN=alice); a second CA signs a stranger. */
export function makePki(dir: string): Pki {
  const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const ca = (name: string) => {
    ssl(
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-days',
      '2',
      '-subj',
      `/O=Test/CN=${name}`,
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.crt`,
    );
  };
  const leaf = (name: string, subj: string, signer: string) => {
    ssl(
      'req',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-subj',
      subj,
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.csr`,
    );
    ssl(
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      `${signer}.crt`,
      '-CAkey',
      `${signer}.key`,
      '-CAcreateserial',
      '-days',
      '1',
      '-out',
      `${name}.crt`,
      '-extfile',
      `${name}.ext`,
    );
  };
  const write = (name: string, text: string) =>
    execFileSync('sh', ['-c', `cat > ${name}`], { cwd: dir, input: text });
  ca('ca');
  ca('other-ca');
  write('server.ext', 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
  write('alice.ext', 'extendedKeyUsage=clientAuth\n');
  write('mallory.ext', 'extendedKeyUsage=clientAuth\n');
  leaf('server', '/CN=127.0.0.1', 'ca');
  leaf('alice', '/O=Acme/CN=alice', 'ca');
  leaf('mallory', '/O=Acme/CN=alice', 'other-ca');
  const read = (f: string) => readFileSync(join(dir, f));
  return {
    ca: read('ca.crt'),
    serverKey: read('server.key'),
    serverCert: read('server.crt'),
    client: { key: read('alice.key'), cert: read('alice.crt') },
    stranger: { key: read('mallory.key'), cert: read('mallory.crt') },
  };
}
