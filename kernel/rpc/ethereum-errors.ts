/**
 * The method namespaces of Ethereum's JSON-RPC and of the dev tools built on it. Their clients — viem,
 * ethers, cast, Hardhat's helpers — show an error's `message` and nothing else, so there it carries
 * the human text, as geth and Anvil put it; the `svc_` methods keep the node's own shape (the error's
 * name in `message`, the text in `data.reason`).
 */
const ETHEREUM_NAMESPACES = new Set(['eth', 'net', 'web3', 'debug', 'txpool', 'evm', 'anvil', 'hardhat', 'personal']);

export function isEthereumMethod(method: string): boolean {
  const end = method.indexOf('_');
  return end > 0 && ETHEREUM_NAMESPACES.has(method.slice(0, end));
}

export interface WireError {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

/**
 * An error as an Ethereum client reads it: the reason as `message`; `data` keeps the reason, the
 * fields, and the error's name as `error`. Errors without a reason (a revert's bytes as `data`, geth's
 * words already in `message`) pass unchanged.
 */
export function ethereumShaped(wire: WireError): WireError {
  const { data } = wire;
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return wire;
  const reason = (data as { reason?: unknown }).reason;
  if (typeof reason !== 'string') return wire;
  return { code: wire.code, message: reason, data: { error: wire.message, ...data } };
}
