import { useEffect, useRef, useState } from "preact/hooks";

export interface Polled<T> {
  data: T | null;
  error: string | null;
  reload: () => void;
}

/**
 * Reads `load` now and every `everyMs` after each answer (never two at once), while the page is
 * shown; `key` changing (other filters) starts over. Live updates without a reload or a socket.
 */
export function usePoll<T>(load: () => Promise<T>, key: string, everyMs = 1500): Polled<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [tick, setTick] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const run = async () => {
      try {
        const value = await loadRef.current();
        if (stopped) return;
        setData(value);
        setError(null);
      } catch (e) {
        if (stopped) return;
        setError(e instanceof Error ? e.message : String(e));
      }
      if (!stopped) timer = setTimeout(run, everyMs);
    };
    void run();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [key, tick, everyMs]);
  return { data, error, reload: () => setTick((t) => t + 1) };
}
