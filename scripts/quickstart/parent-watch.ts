const POLL_MS = 500;

/**
 * Calls `onGone` once this process's parent is no longer `parentPid`: the kernel gives an orphan
 * another parent when its own ends. npm passes SIGINT and SIGTERM on to `npm start`'s script but
 * dies of SIGHUP without passing it on, and of SIGKILL; either way the quick start would run on,
 * unseen, holding its ports.
 */
export function watchParent(parentPid: number, onGone: () => void): void {
  const check = () => {
    if (process.ppid === parentPid) return;
    clearInterval(timer);
    onGone();
  };
  const timer = setInterval(check, POLL_MS);
  timer.unref();
  check();
}
