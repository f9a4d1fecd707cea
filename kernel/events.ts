import mittModule, { type Emitter, type EventType } from 'mitt';
import type { Logger } from './log.js';
import type { SvcEvents } from './plugin.js';

export type { SvcEvents };

// mitt ships ESM at run time but CommonJS-style typings; take the function from either shape.
const mitt = ((mittModule as unknown as { default?: unknown }).default ?? mittModule) as unknown as <
  E extends Record<EventType, unknown>,
>() => Emitter<E>;

export type EventName = keyof SvcEvents & string;
export type EventHandler<K extends EventName> = (event: SvcEvents[K]) => void | Promise<void>;

/** The one event bus: mitt underneath, with each handler's errors contained and logged under its owner. */
export class EventBus {
  private readonly emitter: Emitter<Record<string, unknown>> = mitt();

  constructor(private readonly log: Logger) {}

  on<K extends EventName>(type: K, handler: EventHandler<K>, owner = 'kernel'): () => void {
    const wrapped = (event: unknown): void => {
      try {
        const result = handler(event as SvcEvents[K]);
        if (result && typeof (result as Promise<void>).catch === 'function') {
          (result as Promise<void>).catch((error: unknown) => this.report(owner, type, error));
        }
      } catch (error) {
        this.report(owner, type, error);
      }
    };
    this.emitter.on(type, wrapped);
    return () => this.emitter.off(type, wrapped);
  }

  emit<K extends EventName>(type: K, event: SvcEvents[K]): void {
    this.emitter.emit(type, event);
  }

  /** A view for one plugin: its handlers are logged under its name and removed together. */
  scoped(owner: string): ScopedEvents {
    const offs: (() => void)[] = [];
    return {
      on: (type, handler) => {
        const off = this.on(type, handler, owner);
        offs.push(off);
        return off;
      },
      emit: (type, event) => this.emit(type, event),
      dispose: () => {
        for (const off of offs.splice(0)) off();
      },
    };
  }

  private report(owner: string, type: string, error: unknown): void {
    this.log.error(
      { plugin: owner, event: type, err: error },
      `event handler of plugin "${owner}" failed on "${type}"`,
    );
  }
}

export interface ScopedEvents {
  on<K extends EventName>(type: K, handler: EventHandler<K>): () => void;
  emit<K extends EventName>(type: K, event: SvcEvents[K]): void;
  dispose(): void;
}
