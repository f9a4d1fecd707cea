import { isPrefixOf, Namespace, NAMESPACE_NAME_PATTERN, WriteBatch } from './namespace.js';
import type { KeyValueBackend } from './types.js';

export class NamespaceError extends Error {
  override name = 'NamespaceError';
}

/**
 * The node's one database, split into named namespaces. Claiming a name twice, or a prefix that
 * overlaps another's, is refused with both owners named.
 */
export class Store {
  private readonly namespaces = new Map<string, Namespace>();

  constructor(readonly backend: KeyValueBackend) {}

  claim(name: string, owner: string): Namespace {
    if (!NAMESPACE_NAME_PATTERN.test(name)) {
      throw new NamespaceError(`plugin "${owner}": namespace name "${name}" must match ${NAMESPACE_NAME_PATTERN}`);
    }
    const existing = this.namespaces.get(name);
    if (existing)
      throw new NamespaceError(
        `namespace "${name}" of plugin "${owner}" is already claimed by plugin "${existing.owner}"`,
      );
    const namespace = new Namespace(name, owner, this.backend);
    for (const other of this.namespaces.values()) {
      if (isPrefixOf(other.prefix, namespace.prefix) || isPrefixOf(namespace.prefix, other.prefix)) {
        throw new NamespaceError(
          `namespace "${name}" of plugin "${owner}" overlaps namespace "${other.name}" of plugin "${other.owner}"`,
        );
      }
    }
    this.namespaces.set(name, namespace);
    return namespace;
  }

  list(): Namespace[] {
    return [...this.namespaces.values()];
  }

  batch(): WriteBatch {
    return new WriteBatch(this.backend);
  }

  close(): Promise<void> {
    return this.backend.close();
  }
}
