import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { tempDir } from './temp-dirs.js';

export interface TestCertificates {
  /** The certificate authority's PEM certificate: what a client trusts. */
  readonly caFile: string;
  /** A server certificate for 127.0.0.1 and localhost, signed by that authority, and its key. */
  readonly certFile: string;
  readonly keyFile: string;
}

/** A throw-away certificate authority and a server certificate it signed, made with openssl at test time. */
export function makeTestCertificates(): TestCertificates {
  const dir = tempDir('svc-tls-');
  const path = (name: string): string => join(dir, name);
  const openssl = (...args: string[]): void => void execFileSync('openssl', args, { stdio: 'pipe' });
  openssl(
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-keyout',
    path('ca.key'),
    '-out',
    path('ca.pem'),
    '-days',
    '2',
    '-subj',
    '/CN=svc test CA',
  );
  openssl(
    'req',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-keyout',
    path('server.key'),
    '-out',
    path('server.csr'),
    '-subj',
    '/CN=localhost',
  );
  const ext = path('server.ext');
  execFileSync('sh', ['-c', `printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\\n' > '${ext}'`]);
  openssl(
    'x509',
    '-req',
    '-in',
    path('server.csr'),
    '-CA',
    path('ca.pem'),
    '-CAkey',
    path('ca.key'),
    '-CAcreateserial',
    '-out',
    path('server.pem'),
    '-days',
    '2',
    '-extfile',
    ext,
  );
  return { caFile: path('ca.pem'), certFile: path('server.pem'), keyFile: path('server.key') };
}
