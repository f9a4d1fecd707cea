// The config's fixed values, apart from its schema so the CLI can check flags without loading typebox.
export const ROLES = ['validator', 'compute', 'full'] as const;
export type Role = (typeof ROLES)[number];

/** `/ip4/<ip>/tcp/<port>/p2p/<peer id>` (also /ip6, /dns4, /dns6). Values are checked further when parsed. */
export const MULTIADDR_PATTERN = '^/(ip4|ip6|dns4|dns6)/[^/]+/tcp/[0-9]{1,5}/p2p/[1-9A-HJ-NP-Za-km-z]{32,128}$';

/** A network's name (`--network`), as the config and `svc-node init` take it. */
export const NETWORK_NAME_PATTERN = '^[a-z][a-z0-9-]{0,31}$';
