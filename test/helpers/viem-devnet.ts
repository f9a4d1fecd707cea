import { defineChain, type Chain } from 'viem';

/** The devnet as viem's clients name a chain: its EVM chain id and OMC, at `url`. */
export const devnetViemChain = (url: string): Chain =>
  defineChain({
    id: 0x737663,
    name: 'svc devnet',
    nativeCurrency: { name: 'OMC', symbol: 'OMC', decimals: 18 },
    rpcUrls: { default: { http: [url] } },
  });
