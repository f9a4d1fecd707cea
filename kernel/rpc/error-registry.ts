import type { ErrorDeclaration, ErrorDeclarations } from '../../sdk/errors.js';

export interface DeclaredError extends ErrorDeclaration {
  readonly name: string;
  /** Who declared it first: `kernel` or a plugin's name. */
  readonly owner: string;
}

export class ErrorDeclarationError extends Error {
  override name = 'ErrorDeclarationError';
}

const ERROR_NAME = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;

const same = (a: ErrorDeclaration, b: ErrorDeclaration) =>
  a.code === b.code && a.description === b.description && a.httpStatus === b.httpStatus;

/**
 * Every error the node may answer with, by name, from the kernel and the plugins that raise them
 * (as RPC methods are). A name means one thing and a code belongs to one declarer: a second
 * declaration of a name, or another declarer's code, is refused at start, naming both. Two plugins
 * that share a library may both declare its errors, if they declare them alike.
 */
export class ErrorRegistry {
  private readonly byName = new Map<string, DeclaredError>();
  private readonly ownerOfCode = new Map<number, { owner: string; name: string }>();

  constructor(kernelErrors: ErrorDeclarations) {
    this.declare(kernelErrors, 'kernel');
  }

  declare(declarations: ErrorDeclarations, owner: string): void {
    for (const [name, declaration] of Object.entries(declarations)) {
      if (!ERROR_NAME.test(name))
        throw new ErrorDeclarationError(`plugin "${owner}": error name "${name}" must be snake_case`);
      if (!Number.isInteger(declaration.code))
        throw new ErrorDeclarationError(`plugin "${owner}": error "${name}" needs an integer code`);
      const existing = this.byName.get(name);
      if (existing) {
        if (same(existing, declaration)) continue;
        throw new ErrorDeclarationError(
          `error "${name}" of plugin "${owner}" is already declared by ${existing.owner === 'kernel' ? 'the kernel' : `plugin "${existing.owner}"`} (code ${existing.code})`,
        );
      }
      const coded = this.ownerOfCode.get(declaration.code);
      if (coded && coded.owner !== owner)
        throw new ErrorDeclarationError(
          `error "${name}" of plugin "${owner}" has code ${declaration.code}, which is "${coded.name}"'s, declared by ${coded.owner === 'kernel' ? 'the kernel' : `plugin "${coded.owner}"`}`,
        );
      this.byName.set(name, { ...declaration, name, owner });
      if (!coded) this.ownerOfCode.set(declaration.code, { owner, name });
    }
  }

  get(name: string): DeclaredError | undefined {
    return this.byName.get(name);
  }

  list(): DeclaredError[] {
    return [...this.byName.values()];
  }
}
