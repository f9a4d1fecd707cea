/**
 * @ethereumjs/evm's error class, from its own module: the instance the EVM checks results against
 * (the package's entry re-exports this module). Imported by file because the entry would load the
 * whole EVM, which a node loads only at its first EVM run (engine.ts).
 */
export const { EVMError } = (await import(new URL('./errors.js', import.meta.resolve('@ethereumjs/evm')).href)) as {
  EVMError: typeof import('@ethereumjs/evm').EVMError;
};
