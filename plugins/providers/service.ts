import type { Address } from '../../sdk/address.js';
import { formatAmountShort, UNIT } from '../../sdk/amount.js';
import { domainError } from '../../sdk/errors.js';
import type { KeyPair } from '../../sdk/keys.js';
import { signTransaction, type Payload } from '../../sdk/transaction.js';
import type { ChainReader, TxSubmitter } from '../../chain/capabilities.js';
import type { SyncStatus } from '../../p2p/sync-status.js';
import type { OperatorKeys } from '../../keys/node-keys.js';
import type { Logger } from '../../kernel/log.js';
import type { Table } from '../../kernel/storage/layout.js';
import type { Static, TObject } from 'typebox';
import { readRecord, type ProviderKind } from './registry.js';

/** This node's registration as it remembers it (its namespace, key `registration`): survives restarts. */
export interface LocalRegistration<Details = Record<string, unknown>> {
  readonly operator: Address;
  readonly peerId: string;
  readonly bond: string;
  /** What the registration declared besides the bond, typed by its kind (`DetailsOf`). */
  readonly details: Details;
  /** Absent for a registration of block 0 (the genesis made it: no transaction). */
  readonly txHash?: string;
  readonly unregisterTxHash?: string;
}

/** Unbonding: the registration is on chain, its bond still locked until `releaseAt`. */
export type ProviderStatus = 'unregistered' | 'pending' | 'active' | 'unbonding';

export interface StatusView<Details = Record<string, unknown>> {
  readonly status: ProviderStatus;
  readonly registration: LocalRegistration<Details> | undefined;
  /** While unbonding: the height at which the bond is released. */
  readonly releaseAt?: number;
}

const REGISTRATION = 'registration';

/**
 * One node's side of a provider capability: registers it on chain with a bond signed by an operator
 * key the node holds, tells its status, unregisters it. Shared by `compute` and `omp-storage`.
 */
export interface ProviderServiceOptions<D extends TObject = TObject> {
  readonly kind: ProviderKind<D>;
  readonly chain: ChainReader;
  readonly sync: SyncStatus;
  readonly submitter: TxSubmitter;
  readonly keys: OperatorKeys;
  readonly peerId: () => string;
  readonly store: Table<string, LocalRegistration<Static<D>>>;
  readonly log: Logger;
  /** False when the node's config switched the capability off. */
  readonly enabled: boolean;
  /** The node's role (a compute-role node dedicates its capacity). */
  readonly role: string;
}

/** A provider capability's service: this node's registration (of a kind with details `D`), and `E`, the capability's own work. */
export class ProviderService<E = unknown, D extends TObject = TObject> {
  private registration: LocalRegistration<Static<D>> | undefined;
  /**
   * The capability's own work (the compute job runner, the object store), typed by the capability
   * (`SvcCapabilities['omp-storage']`). Its plugin's init sets it before any other plugin sees the service.
   */
  extension!: E;

  /** This node's registration as it keeps it (whatever the chain says of it). */
  get localRegistration(): LocalRegistration<Static<D>> | undefined {
    return this.registration;
  }
  readonly kind: ProviderKind<D>;
  readonly enabled: boolean;
  readonly role: string;
  readonly chain: ChainReader;
  private readonly sync: SyncStatus;
  private readonly submitter: TxSubmitter;
  private readonly keys: OperatorKeys;
  private readonly peerId: () => string;
  private readonly store: Table<string, LocalRegistration<Static<D>>>;
  private readonly log: Logger;

  constructor(options: ProviderServiceOptions<D>) {
    ({
      kind: this.kind,
      enabled: this.enabled,
      role: this.role,
      chain: this.chain,
      sync: this.sync,
      submitter: this.submitter,
      keys: this.keys,
      peerId: this.peerId,
      store: this.store,
      log: this.log,
    } = options);
  }

  async load(): Promise<void> {
    this.registration = (await this.store.get(REGISTRATION)) ?? this.registeredInGenesis();
  }

  /**
   * A registration of block 0 by an operator whose key the node holds (the devnet validator's): this
   * node's own, though no transaction of it made it.
   */
  private registeredInGenesis(): LocalRegistration<Static<D>> | undefined {
    for (const operator of this.keys.addresses) {
      const record = readRecord((key) => this.chain.state.get(key), this.kind, operator);
      if (record?.registeredAt !== 0) continue;
      if (record.peerId !== this.peerId()) {
        this.log.warn(
          { operator, genesisPeerId: record.peerId, peerId: this.peerId() },
          `the genesis registers ${operator} as a ${this.kind.purpose} provider at another peer id than this node's (its data dir had keys before): it does the work, but peers cannot reach it by that id`,
        );
      }
      return { operator, peerId: record.peerId, bond: record.bond, details: record.details };
    }
    return undefined;
  }

  private async save(registration: LocalRegistration<Static<D>> | undefined): Promise<void> {
    this.registration = registration;
    if (registration) await this.store.putNow(REGISTRATION, registration);
    else await this.store.delNow(REGISTRATION);
  }

  /** Signs and submits the bond transaction; the registration is `pending` until a block holds it. */
  async register(operator: Address, bond: bigint, details: Static<D>): Promise<LocalRegistration<Static<D>>> {
    if (bond < this.kind.minimumBond) {
      throw domainError(
        'bond_too_low',
        `the ${this.kind.purpose} bond is at least ${formatAmountShort(this.kind.minimumBond)} OGT`,
        { minimum: Number(this.kind.minimumBond / UNIT), field: 'bond_ogt' },
      );
    }
    if (!this.sync.synced)
      throw domainError(
        'not_synced',
        `this node has not synced yet (head ${this.chain.head.height} of ${this.sync.highestKnown}); register once it has`,
      );
    const key = this.operatorKey(operator);
    if (!key)
      throw domainError(
        'operator_key_unavailable',
        `this node holds no key for operator ${operator}; import it with \`svc-node keys import\``,
        { operator },
      );
    const current = await this.status();
    if (current.status !== 'unregistered') {
      throw domainError(
        'already_registered',
        `this node is already registered as a ${this.kind.purpose} provider (operator ${current.registration!.operator}, ${current.status})`,
        { status: current.status },
      );
    }
    if (readRecord((key) => this.chain.state.get(key), this.kind, operator))
      throw domainError(
        'already_registered',
        `operator ${operator} is already a registered ${this.kind.purpose} provider`,
        { operator },
      );
    const peerId = this.peerId();
    const tx = signTransaction(
      {
        chainId: this.chain.head.chainId,
        kind: `${this.kind.plugin}.register`,
        nonce: this.submitter.nextNonce(operator),
        payload: { peerId, bond: bond.toString(), details: details as Payload },
      },
      key,
    );
    await this.submitter.submit(tx);
    const registration: LocalRegistration<Static<D>> = {
      operator,
      peerId,
      bond: bond.toString(),
      details,
      txHash: tx.hash,
    };
    await this.save(registration);
    this.log.info({ operator, bond: bond.toString(), tx: tx.hash }, `${this.kind.purpose} registration submitted`);
    return registration;
  }

  /** Starts unbonding: the bond returns to the operator after the genesis unbonding period. */
  async unregister(): Promise<LocalRegistration<Static<D>>> {
    const current = await this.status();
    if (current.status === 'unregistered')
      throw domainError('not_found', `this node is not registered as a ${this.kind.purpose} provider`);
    if (current.status === 'unbonding') {
      throw domainError(
        'invalid_params',
        `the ${this.kind.purpose} registration is already unbonding: the bond returns at block ${current.releaseAt}`,
        { status: current.status, releaseAt: current.releaseAt },
      );
    }
    const pendingUnregister = current.registration!.unregisterTxHash;
    if (
      current.status === 'pending' ||
      (pendingUnregister !== undefined && this.submitter.isPending(pendingUnregister))
    ) {
      const why =
        current.status === 'pending' ? 'its bond is not in a block yet' : 'its unregistration is not in a block yet';
      throw domainError('invalid_params', `the ${this.kind.purpose} registration can't be unregistered now: ${why}`, {
        status: current.status,
      });
    }
    const registration = current.registration!;
    const key = this.operatorKey(registration.operator);
    if (!key)
      throw domainError(
        'operator_key_unavailable',
        `this node no longer holds the key of operator ${registration.operator}`,
        { operator: registration.operator },
      );
    const tx = signTransaction(
      {
        chainId: this.chain.head.chainId,
        kind: `${this.kind.plugin}.unregister`,
        nonce: this.submitter.nextNonce(registration.operator),
        payload: {},
      },
      key,
    );
    await this.submitter.submit(tx);
    const updated = { ...registration, unregisterTxHash: tx.hash };
    await this.save(updated);
    this.log.info({ operator: registration.operator, tx: tx.hash }, `${this.kind.purpose} unbonding submitted`);
    return updated;
  }

  /** The operator's key from the keystore (also one imported while the node runs). */
  private operatorKey(operator: Address): KeyPair | undefined {
    try {
      return this.keys.get(operator);
    } catch (error) {
      throw domainError(
        'operator_key_unavailable',
        `the key of operator ${operator} can't be opened: ${(error as Error).message}`,
        { operator },
      );
    }
  }

  /** This node's registration against the chain: pending until mined, active, unbonding, or gone. */
  /** This node's operator while the capability is on and its registration active: whose key signs its provider work. */
  async activeOperator(): Promise<Address | undefined> {
    if (!this.enabled) return undefined;
    const { status, registration } = await this.status();
    return status === 'active' ? (registration!.operator as Address) : undefined;
  }

  async status(): Promise<StatusView<Static<D>>> {
    const registration = this.registration;
    if (!registration) return { status: 'unregistered', registration };
    const record = readRecord((key) => this.chain.state.get(key), this.kind, registration.operator);
    if (record && record.peerId === registration.peerId) {
      return record.releaseAt === undefined
        ? { status: 'active', registration }
        : { status: 'unbonding', registration, releaseAt: record.releaseAt };
    }
    if (registration.txHash === undefined) {
      await this.save(undefined);
      return { status: 'unregistered', registration: undefined };
    }
    if (this.submitter.isPending(registration.txHash)) return { status: 'pending', registration };
    const receipt = await this.chain.getReceipt(registration.txHash);
    if (!receipt) return { status: 'pending', registration };
    // Mined but not (or no longer) on chain: the registration failed, or its bond was released.
    if (receipt.status === 'failed')
      this.log.warn(
        { tx: registration.txHash, error: receipt.error },
        `${this.kind.purpose} registration failed on chain`,
      );
    await this.save(undefined);
    return { status: 'unregistered', registration: undefined };
  }
}
