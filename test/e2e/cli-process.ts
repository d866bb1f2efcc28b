import { spawn, type ChildProcess } from 'node:child_process';

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Starts `trawl <args>` as its own process (the way a user runs it); `done` resolves when it exits. */
export function startCli(args: string[], env: Record<string, string> = {}): { child: ChildProcess; done: Promise<CliResult> } {
  const started = Date.now();
  const child = spawn(process.execPath, ['--import', 'tsx', 'shared/cli/main.ts', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<CliResult>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, stdout, stderr, ms: Date.now() - started })));
  return { child, done };
}

/** Runs `trawl <args>` to the end; kills it (and fails) if it outlives `timeoutMs`. */
export async function runCli(args: string[], timeoutMs = 60_000, env: Record<string, string> = {}): Promise<CliResult> {
  const { child, done } = startCli(args, env);
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  try {
    return await done;
  } finally {
    clearTimeout(timer);
  }
}
