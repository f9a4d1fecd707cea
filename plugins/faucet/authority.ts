import type { Stream } from '@libp2p/interface';
import { lpStream } from '@libp2p/utils';
import type { Address } from '../../sdk/address.js';
import { DOMAIN_ERRORS, domainError, isRpcError, type DomainErrorName } from '../../sdk/errors.js';
import type { Grant } from './service.js';

/*
 * One node decides every grant of a network: its faucet authority (the genesis validator of a network
 * `svc-node init` makes; the config's `faucet.authority` names it by peer id on the other nodes). A
 * grant is a mint signed with the one faucet account, checked against the address's cooldown; two nodes
 * deciding apart could each answer `funded` for one address before either mint reached the other — the
 * chain then refuses the second mint, and the second caller was told a grant it did not get. The other
 * nodes pass `faucet_request` to the authority on this protocol and answer what it answers; each keeps
 * its own clients' per-client limit.
 */
export const FAUCET_PROTOCOL = '/svc/faucet/grant/1.0.0';
/** How long a node waits for the authority's answer before telling its caller the faucet is unavailable. */
export const AUTHORITY_TIMEOUT_MS = 10_000;
const MAX_MESSAGE_BYTES = 4096;

interface GrantRequest {
  readonly address: string;
}
type GrantAnswer =
  | { readonly grant: Grant }
  | { readonly refused: { readonly name: string; readonly data: Record<string, unknown> & { reason: string } } };

const json = (value: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(value));
const parse = (bytes: Uint8Array): unknown => JSON.parse(new TextDecoder().decode(bytes));

/** The authority's side: one request, one answer — the grant, or the domain error that refused it. */
export async function answerGrant(
  stream: Stream,
  decide: (address: Address) => Promise<Grant>,
  signal: AbortSignal,
): Promise<void> {
  const lp = lpStream(stream, { maxDataLength: MAX_MESSAGE_BYTES });
  const request = parse((await lp.read({ signal })).subarray()) as Partial<GrantRequest> | null;
  let answer: GrantAnswer;
  try {
    if (typeof request?.address !== 'string')
      throw domainError('invalid_params', 'a faucet grant request names an address');
    answer = { grant: await decide(request.address as Address) };
  } catch (error) {
    if (!isRpcError(error) || !(error.message in DOMAIN_ERRORS)) throw error;
    answer = { refused: { name: error.message, data: error.data ?? { reason: error.message } } };
  }
  await lp.write(json(answer), { signal });
  await stream.close().catch(() => undefined);
}

/** Asks the authority for a grant to `address`: its grant, or its refusal thrown as the same domain error. */
export async function askForGrant(stream: Stream, address: Address, signal: AbortSignal): Promise<Grant> {
  const lp = lpStream(stream, { maxDataLength: MAX_MESSAGE_BYTES });
  await lp.write(json({ address } satisfies GrantRequest), { signal });
  const answer = parse((await lp.read({ signal })).subarray()) as GrantAnswer;
  await stream.close().catch(() => undefined);
  if ('refused' in answer) {
    const { name, data } = answer.refused;
    if (!(name in DOMAIN_ERRORS))
      throw new Error(`the faucet authority refused with an error this node does not know: ${name}`);
    const { reason, ...extra } = data;
    throw domainError(name as DomainErrorName, String(reason), extra);
  }
  return answer.grant;
}
