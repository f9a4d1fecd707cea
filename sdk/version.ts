/**
 * The SDK's version (semver; the package's). `rpcCall` and everything the SDK exports today are there
 * from 1.1.0 on; a client can check for a feature by comparing with this.
 */
export const SDK_VERSION = '1.1.0';
