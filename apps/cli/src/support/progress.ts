/** Where progress goes: a terminal (one line, redrawn) or a log (a line per step of 10 %). */
export interface ProgressSink {
  write(text: string): unknown;
  isTTY?: boolean;
}

/** A progress bar on stderr: `[#########-----------]  45%  4.5 MiB / 10.0 MiB`. */
export class ProgressBar {
  private lastDecile = -1;

  constructor(
    private readonly label: string,
    private readonly sink: ProgressSink,
    private readonly width = 24,
  ) {}

  update(done: number, total: number | undefined): void {
    const ratio = total ? Math.min(1, done / total) : 0;
    const line = renderBar(this.label, done, total, this.width);
    if (this.sink.isTTY) {
      this.sink.write(`\r${line}`);
      return;
    }
    const decile = Math.floor(ratio * 10);
    if (decile > this.lastDecile) {
      this.lastDecile = decile;
      this.sink.write(`${line}\n`);
    }
  }

  finish(): void {
    if (this.sink.isTTY) this.sink.write('\n');
  }
}

export function renderBar(label: string, done: number, total: number | undefined, width: number): string {
  if (!total) return `${label} ${formatBytes(done)}`;
  const ratio = Math.min(1, done / total);
  const filled = Math.round(ratio * width);
  const percent = `${Math.floor(ratio * 100)}%`.padStart(4);
  return `${label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${percent}  ${formatBytes(done)} / ${formatBytes(total)}`;
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = n / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}
