import { readFileSync } from 'node:fs';
import { createSecureContext } from 'node:tls';
import { ConfigError } from '../config/errors.js';
import type { TlsCredentials } from './server.js';

function readPem(path: string, flag: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    throw new ConfigError(
      `${flag} ${path}: cannot read it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
  }
}

/** The certificate and key files, read and checked to be a matching PEM pair before the node listens. */
export function readTlsCredentials(files: { cert: string; key: string }): TlsCredentials {
  const credentials = { cert: readPem(files.cert, '--tls-cert'), key: readPem(files.key, '--tls-key') };
  try {
    createSecureContext(credentials);
  } catch (error) {
    throw new ConfigError(
      `--tls-cert ${files.cert} / --tls-key ${files.key}: not a PEM certificate and its private key (${(error as Error).message})`,
    );
  }
  return credentials;
}
