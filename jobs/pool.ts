import { Worker } from 'node:worker_threads';
import { ModuleRejectedError } from './wasm/binary.js';
import type { JobOutcome } from './outcome.js';
import type { JobSpec } from './spec.js';

// From dist/ the worker sits beside this file; tests run the TypeScript sources and use the build's copy.
const WORKER_URL = import.meta.url.endsWith('.ts')
  ? new URL('../dist/jobs/worker.js', import.meta.url)
  : new URL('./worker.js', import.meta.url);

/** The run took longer than the pool allows: its worker was stopped (gas bounds the work; this bounds the time). */
export class JobTimeoutError extends Error {
  override name = 'JobTimeoutError';
}

/** The worker died under the job (its own heap limit, or a crash): the job has no outcome. */
export class WorkerCrashedError extends Error {
  override name = 'WorkerCrashedError';
}

export interface JobPoolOptions {
  /** Worker threads: jobs run side by side up to this many. */
  readonly size: number;
  /** Wall-clock ceiling per run. */
  readonly timeoutMs: number;
  /** Heap of each worker (WASM memory is bounded by the module's own cap, not by this). */
  readonly heapMb?: number;
}

interface Task {
  readonly spec: JobSpec;
  readonly resolve: (outcome: JobOutcome) => void;
  readonly reject: (error: Error) => void;
}

interface Slot {
  worker: Worker;
  task?: Task & { id: number; timer: NodeJS.Timeout };
}

/**
 * Runs jobs on worker threads, never on the main thread: a trap, an endless loop or a memory bomb
 * costs a worker, not RPC or block production. A worker that overruns the time limit or dies is
 * replaced.
 */
export class JobPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Task[] = [];
  private nextId = 1;
  private closed = false;

  constructor(private readonly options: JobPoolOptions) {
    for (let i = 0; i < options.size; i++) this.slots.push({ worker: this.spawn() });
  }

  get busy(): number {
    return this.slots.filter((slot) => slot.task).length;
  }

  get queued(): number {
    return this.queue.length;
  }

  run(spec: JobSpec): Promise<JobOutcome> {
    if (this.closed) return Promise.reject(new Error('the job pool is closed'));
    return new Promise((resolve, reject) => {
      this.queue.push({ spec, resolve, reject });
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const task of this.queue.splice(0)) task.reject(new Error('the job pool is closed'));
    await Promise.all(
      this.slots.splice(0).map((slot) => {
        if (slot.task) {
          clearTimeout(slot.task.timer);
          slot.task.reject(new Error('the job pool is closed'));
        }
        return slot.worker.terminate();
      }),
    );
  }

  private spawn(): Worker {
    const worker = new Worker(WORKER_URL, {
      resourceLimits: { maxOldGenerationSizeMb: this.options.heapMb ?? 256, stackSizeMb: 16 },
    });
    worker.unref();
    worker.on(
      'message',
      (reply: { id: number; outcome?: JobOutcome; error?: { name: string; message: string; feature?: string } }) => {
        const slot = this.slots.find((s) => s.worker === worker);
        const task = slot?.task;
        if (!slot || !task || task.id !== reply.id) return;
        clearTimeout(task.timer);
        slot.task = undefined;
        if (reply.outcome) task.resolve(reply.outcome);
        else if (reply.error?.name === 'ModuleRejectedError')
          task.reject(new ModuleRejectedError(reply.error.message, reply.error.feature ?? 'module'));
        else task.reject(new Error(reply.error?.message ?? 'the job failed'));
        this.dispatch();
      },
    );
    worker.on('error', (error) =>
      this.replace(worker, new WorkerCrashedError(`the job's worker failed: ${error.message}`)),
    );
    worker.on('exit', () => this.replace(worker, new WorkerCrashedError("the job's worker exited")));
    return worker;
  }

  private replace(worker: Worker, error: Error): void {
    const slot = this.slots.find((s) => s.worker === worker);
    if (!slot || this.closed) return;
    const task = slot.task;
    slot.task = undefined;
    worker.removeAllListeners();
    void worker.terminate();
    slot.worker = this.spawn();
    if (task) {
      clearTimeout(task.timer);
      task.reject(error);
    }
    this.dispatch();
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (slot.task) continue;
      const task = this.queue.shift();
      if (!task) return;
      const id = this.nextId++;
      const timer = setTimeout(
        () => this.replace(slot.worker, new JobTimeoutError(`the job ran longer than ${this.options.timeoutMs} ms`)),
        this.options.timeoutMs,
      );
      timer.unref();
      slot.task = { ...task, id, timer };
      slot.worker.postMessage({ id, spec: task.spec });
    }
  }
}
