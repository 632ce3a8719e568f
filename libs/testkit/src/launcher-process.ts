import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const READY_LINE = /Sightline is running at (http:\/\/\S+)/;

export interface LauncherProcess {
  url: string;
  child: ChildProcess;
  /** everything the process printed so far (stdout + stderr) */
  output(): string;
  /** milliseconds from spawn to the ready line */
  startupMs: number;
  /** sends `signal` and resolves with the exit code */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Starts the real launcher (`apps/launcher/src/main.ts`, what `npm start` runs) as a
 * child process and waits for its "running at" line. PORT defaults to 0 (a free port); METRICS_PORT to 0 (off), so parallel launchers never fight over 9464.
 */
export async function startLauncherProcess(
  options: {
    env?: Record<string, string>;
    args?: string[];
    timeoutMs?: number;
    /** flags for node itself, e.g. --cpu-prof */
    nodeArgs?: string[];
    /** another checkout of Sightline (with its node_modules) to run instead of this one: a bench's baseline */
    root?: string;
  } = {},
): Promise<LauncherProcess> {
  const started = Date.now();
  const root = options.root ?? ROOT;
  const child = spawn(
    process.execPath,
    [...(options.nodeArgs ?? []), '--import', 'tsx', path.join(root, 'apps/launcher/src/main.ts'), ...(options.args ?? [])],
    {
      cwd: root,
      env: { ...process.env, PORT: '0', METRICS_PORT: '0', LOG_LEVEL: 'warn', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`launcher not ready within ${options.timeoutMs ?? 90_000} ms:\n${output}`));
    }, options.timeoutMs ?? 90_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = READY_LINE.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`launcher exited with ${code} before it was ready:\n${output}`));
    });
  });
  return {
    url,
    child,
    output: () => output,
    startupMs: Date.now() - started,
    stop: async (signal: NodeJS.Signals = 'SIGTERM') => {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Runs the launcher expecting it to fail fast; resolves with its exit code and output. */
export async function runLauncherToExit(options: {
  env?: Record<string, string>;
  args?: string[];
  timeoutMs?: number;
}): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'apps/launcher/src/main.ts'), ...(options.args ?? [])], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', METRICS_PORT: '0', LOG_LEVEL: 'warn', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearTimeout(timer);
  return { code, output };
}
