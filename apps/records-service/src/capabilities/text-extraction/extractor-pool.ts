import { ChildProcess, fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { EXTRACTOR_MODE } from './extractor.child';
import type {
  ExtractionLimits,
  ExtractionRequest,
  ExtractionResponse,
  ExtractionResult,
  FailureReason,
} from './extraction.types';

export interface ExtractorPoolOptions {
  /** Extractor processes at most (each reads one file at a time, OCR included). */
  size: number;
  /** The script forked with argument `text-extractor` (the service's main.js). */
  script: string;
  /** Node options of the extractor processes (e.g. a loader in tests). */
  execArgv: string[];
  /** V8 heap of an extractor process (--max-old-space-size). */
  heapMb: number;
  /** Resident memory an extractor may reach before it is killed (the file is `out_of_memory`). */
  maxRssMb: number;
  /** Time one file may take before its extractor is killed (the file is `timeout`). */
  timeoutMs: number;
  /** Files an extractor reads before it is replaced by a fresh one. */
  recycleAfter: number;
  /**
   * Resident memory, after a file, above which the extractor is replaced by a fresh one
   * before the next file (what a large file left behind is not carried on). Below it, an
   * extractor is kept for `recycleAfter` files: a start costs about a second of CPU.
   */
  recycleAboveRssMb: number;
}

interface Slot {
  child?: ChildProcess;
  /** Resolves when the extractor process has loaded (its start does not count against a file's time). */
  ready?: Promise<boolean>;
  jobs: number;
}

/** Time an extractor process may take to start. */
const START_TIMEOUT_MS = 60_000;

/** Resident set of a process in MiB (Linux /proc; 0 where it cannot be read). */
function rssMb(pid: number | undefined): number {
  try {
    const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** Whether a new extractor process said it is ready (false: it exited or took too long). */
function started(child: ChildProcess): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      clearTimeout(timer);
      child.off('message', onMessage).off('exit', onExit);
      resolve(ok);
    };
    const onMessage = (m: { ready?: boolean }) => m.ready === true && done(true);
    const onExit = () => done(false);
    const timer = setTimeout(() => done(false), START_TIMEOUT_MS);
    child.on('message', onMessage).on('exit', onExit);
  });
}

/**
 * A bounded pool of extractor processes (`main.js text-extractor`): a file is read in a
 * process of its own so that a hostile one (a zip bomb, a PDF that loops) costs at most
 * that process, killed on the time or memory limit and replaced; the service never stalls.
 */
export class ExtractorPool {
  private readonly slots: Slot[];
  private readonly free: Slot[];
  private readonly waiting: ((s: Slot) => void)[] = [];
  private nextId = 1;
  private closed = false;

  constructor(private readonly options: ExtractorPoolOptions) {
    this.slots = Array.from({ length: options.size }, () => ({ jobs: 0 }));
    this.free = [...this.slots];
  }

  /** Reads one file in a free extractor process (waits for one). */
  async run(bytes: Uint8Array, ocrLanguage: string, limits: ExtractionLimits): Promise<ExtractionResult> {
    const slot = await this.acquire();
    try {
      return await this.runIn(slot, { id: this.nextId++, bytes, ocrLanguage, limits });
    } finally {
      this.release(slot);
    }
  }

  /** Resident memory of the running extractor processes, MiB. */
  rss(): number {
    return this.slots.reduce((sum, s) => sum + (s.child ? rssMb(s.child.pid) : 0), 0);
  }

  /** Process ids of the running extractor processes. */
  pids(): number[] {
    return this.slots.flatMap((s) => (s.child?.pid ? [s.child.pid] : []));
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.slots.map((s) => this.stop(s)));
  }

  private acquire(): Promise<Slot> {
    const slot = this.free.pop();
    return slot ? Promise.resolve(slot) : new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(slot: Slot): void {
    const next = this.waiting.shift();
    if (next) next(slot);
    else this.free.push(slot);
  }

  private spawn(): ChildProcess {
    const o = this.options;
    return fork(o.script, [EXTRACTOR_MODE], {
      execArgv: [...o.execArgv, `--max-old-space-size=${o.heapMb}`],
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      env: { ...process.env, OTEL_SDK_DISABLED: 'true' },
    });
  }

  private async runIn(slot: Slot, req: ExtractionRequest): Promise<ExtractionResult> {
    const crashed = (detail: string): ExtractionResult => ({
      ok: false,
      detectedType: null,
      reason: 'extractor_crashed',
      detail,
    });
    if (this.closed) return crashed('closing');
    if (!slot.child || slot.jobs >= this.options.recycleAfter || rssMb(slot.child.pid) > this.options.recycleAboveRssMb) {
      void this.stop(slot);
      slot.child = this.spawn();
      slot.ready = started(slot.child);
      slot.jobs = 0;
    }
    const child = slot.child;
    slot.jobs++;
    if (!(await slot.ready)) {
      child.kill('SIGKILL');
      if (slot.child === child) slot.child = undefined;
      return crashed('the extractor process did not start');
    }
    return new Promise((resolve) => {
      const fail = (reason: FailureReason, detail: string) => {
        finish({ ok: false, detectedType: null, reason, detail });
        child.kill('SIGKILL');
        if (slot.child === child) slot.child = undefined;
      };
      const onMessage = (m: ExtractionResponse) => m.id === req.id && finish(m.result);
      const onExit = (code: number | null, signal: string | null) => fail('extractor_crashed', `exit ${code ?? signal}`);
      const timer = setTimeout(() => fail('timeout', `over ${this.options.timeoutMs} ms`), this.options.timeoutMs);
      const watch = setInterval(() => {
        if (rssMb(child.pid) > this.options.maxRssMb) fail('out_of_memory', `over ${this.options.maxRssMb} MiB`);
      }, 100);
      let done = false;
      const finish = (r: ExtractionResult) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        clearInterval(watch);
        child.off('message', onMessage).off('exit', onExit);
        resolve(
          r.ok || r.reason !== 'corrupt' || !/heap out of memory/i.test(r.detail ?? '') ? r : { ...r, reason: 'out_of_memory' },
        );
      };
      child.on('message', onMessage).on('exit', onExit);
      child.send(req);
    });
  }

  private async stop(slot: Slot): Promise<void> {
    const child = slot.child;
    slot.child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        child.kill('SIGKILL');
        resolve();
      }, 2000);
      child.once('exit', () => {
        clearTimeout(t);
        resolve();
      });
      child.disconnect();
    });
  }
}
