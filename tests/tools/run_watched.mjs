// A child process bounded by its progress, for slow work whose length depends on the machine's load
// (exporting torchvision's 48 models took a minute on a quiet machine and over 50 under three
// teams' load): it is killed when it prints nothing for `idleMs` (it hangs), or at `timeout` (a cap
// it must have). What it prints is kept and, with `echo`, passed on to this process's stderr, so
// that a parent watching this process sees the progress too.
import { spawn } from 'node:child_process';

/**
 * Runs `cmd args`; resolves to { status, signal, stdout, stderr, error, idle } (idle: killed for
 * printing nothing for idleMs; error: the spawn error, or the kill's reason).
 */
export function runWatched(cmd, args, { idleMs, timeout, cwd, env, echo = false, maxBuffer = 512 << 20 }) {
  if (!(idleMs > 0) || !(timeout > 0)) throw new TypeError('runWatched needs idleMs and timeout');
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], timeout, killSignal: 'SIGKILL' });
    const out = { stdout: '', stderr: '' };
    let idle = false;
    let timer = null;
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        idle = true;
        child.kill('SIGKILL');
      }, idleMs);
    };
    const take = (key) => (d) => {
      if (out[key].length < maxBuffer) out[key] += d;
      if (echo && key === 'stderr') process.stderr.write(d);
      arm();
    };
    child.stdout.on('data', take('stdout'));
    child.stderr.on('data', take('stderr'));
    arm();
    let spawnError = null;
    child.on('error', (e) => { spawnError = e; });
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      const error = spawnError ?? (idle ? new Error(`${cmd} printed nothing for ${idleMs / 1000} s and was stopped`)
        : signal ? new Error(`${cmd} was stopped by ${signal} (its limit is ${timeout / 1000} s)`) : null);
      resolve({ status, signal, ...out, error, idle });
    });
  });
}
