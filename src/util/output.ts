/**
 * What the CLI writes: results on stdout (plain text, or one JSON document per result with
 * --json), progress and notes on stderr, colours only when the stream is a terminal (NO_COLOR and
 * FORCE_COLOR are honoured), and a status line that redraws itself on a terminal and prints just
 * start and end lines in a CI log.
 */
import { FastTestDbError, messageOf } from '../errors.js';

export interface Io {
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stderr: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  env: NodeJS.ProcessEnv;
}

type Paint = (s: string) => string;

function colourOn(stream: Io['stdout'], env: NodeJS.ProcessEnv): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false';
  return Boolean(stream.isTTY) && env.TERM !== 'dumb';
}

const sgr = (on: boolean, open: number, close: number): Paint => (on ? (s) => `\x1b[${open}m${s}\x1b[${close}m` : (s) => s);

export interface Palette {
  red: Paint;
  green: Paint;
  yellow: Paint;
  blue: Paint;
  dim: Paint;
  bold: Paint;
}

function palette(on: boolean): Palette {
  return {
    red: sgr(on, 31, 39),
    green: sgr(on, 32, 39),
    yellow: sgr(on, 33, 39),
    blue: sgr(on, 36, 39),
    dim: sgr(on, 2, 22),
    bold: sgr(on, 1, 22),
  };
}

export interface Status {
  /**
   * Redraws the line; `done` of `total` is shown when the step was started with a total. A new
   * `total` replaces it: work found on the way (the next server's databases) never reads "2/1".
   */
  update(done?: number, detail?: string, total?: number): void;
  succeed(text?: string): void;
  fail(text?: string): void;
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

export class Output {
  readonly json: boolean;
  /** Colours for stdout and stderr respectively. */
  readonly c: Palette;
  readonly ce: Palette;
  private readonly live: boolean;

  constructor(
    private readonly io: Io,
    opts: { json?: boolean } = {},
  ) {
    this.json = Boolean(opts.json);
    this.c = palette(!this.json && colourOn(io.stdout, io.env));
    this.ce = palette(colourOn(io.stderr, io.env));
    this.live = Boolean(io.stderr.isTTY) && io.env.TERM !== 'dumb' && !io.env.CI;
  }

  /** A line of the result (suppressed with --json, which prints `data` instead). */
  line(text = ''): void {
    if (!this.json) this.io.stdout.write(text + '\n');
  }

  data(value: unknown): void {
    if (this.json) this.io.stdout.write(JSON.stringify(value) + '\n');
  }

  note(text: string): void {
    this.io.stderr.write(text + '\n');
  }

  error(e: unknown): void {
    if (this.json) {
      const err =
        e instanceof FastTestDbError
          ? { code: e.code, message: e.message.split('\n  fix: ')[0], fix: e.fix }
          : { code: 'INTERNAL', message: messageOf(e) };
      this.io.stdout.write(JSON.stringify({ error: err }) + '\n');
      return;
    }
    if (e instanceof FastTestDbError) {
      const [what] = e.message.split('\n  fix: ');
      this.note(`${this.ce.red('error')} ${this.ce.dim(`[${e.code}]`)} ${what}`);
      if (e.fix) this.note(`  ${this.ce.bold('fix:')} ${e.fix}`);
    } else this.note(`${this.ce.red('error')} ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  }

  /** A status line for a step that takes a while; `total` when the number of items is known. */
  status(label: string, initialTotal?: number): Status {
    let total = initialTotal;
    const started = performance.now();
    let done = 0;
    let detail = '';
    let frame = 0;
    const elapsed = () => `${((performance.now() - started) / 1000).toFixed(1)} s`;
    const text = () =>
      `${label}${total !== undefined ? ` ${done}/${total}` : ''}${detail ? ` ${this.ce.dim(detail)}` : ''} ${this.ce.dim(elapsed())}`;
    const width = () => (this.io.stderr.columns || 100) - 1;
    const draw = () => {
      const t = text();
      this.io.stderr.write(
        `\r\x1b[2K${this.ce.blue(FRAMES[frame++ % FRAMES.length]!)} ${t.length > width() + 20 ? t.slice(0, width() + 20) : t}`,
      );
    };
    let timer: NodeJS.Timeout | undefined;
    if (this.live) {
      draw();
      timer = setInterval(draw, 100);
      timer.unref();
    } else this.note(`${label}${total !== undefined ? ` (${total})` : ''}...`);
    const end = (mark: string, final: string) => {
      if (timer) clearInterval(timer);
      if (this.live) this.io.stderr.write('\r\x1b[2K');
      this.note(`${mark} ${final} ${this.ce.dim(`(${elapsed()})`)}`);
    };
    return {
      update: (n, d, t) => {
        if (t !== undefined && total !== undefined) total = t;
        if (n !== undefined) done = n;
        if (d !== undefined) detail = d;
        if (!this.live && total !== undefined && n !== undefined && (n === total || n % Math.max(1, Math.ceil(total / 10)) === 0))
          this.note(`  ${done}/${total} ${detail}`);
      },
      succeed: (t) => end(this.ce.green('✓'), t ?? label),
      fail: (t) => end(this.ce.red('✗'), t ?? label),
    };
  }
}
