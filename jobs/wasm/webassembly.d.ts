// The parts of the WebAssembly JS API the job runtime uses. Node has them at run time; TypeScript
// declares them only in its DOM library, which this project does not load.
declare namespace WebAssembly {
  type ImportValue = ((...args: never[]) => unknown) | Global | Memory;
  type Imports = Record<string, Record<string, ImportValue>>;
  class Module {
    constructor(bytes: Uint8Array);
  }
  class Instance {
    constructor(module: Module, imports?: Imports);
    readonly exports: Record<string, unknown>;
  }
  class Memory {
    readonly buffer: ArrayBuffer;
    grow(pages: number): number;
  }
  class Global {
    value: unknown;
  }
  class RuntimeError extends Error {}
  class CompileError extends Error {}
  function validate(bytes: Uint8Array): boolean;
}
