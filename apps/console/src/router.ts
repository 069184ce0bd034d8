import { useEffect, useState } from "preact/hooks";

/** Where the console is mounted: every page is a real URL under it (the gateway answers them all with the app). */
export const BASE = "/console";

export type Route = { page: "transactions" } | { page: "transaction"; id: string } | { page: "callbacks" } | { page: "wallets" } | { page: "activity" };

export function parseRoute(pathname: string): Route {
  const rest = pathname.startsWith(BASE) ? pathname.slice(BASE.length) : pathname;
  const tx = /^\/transactions\/([^/]+)\/?$/.exec(rest);
  if (tx) return { page: "transaction", id: decodeURIComponent(tx[1]!) };
  if (/^\/callbacks\/?$/.test(rest)) return { page: "callbacks" };
  if (/^\/wallets\/?$/.test(rest)) return { page: "wallets" };
  if (/^\/activity\/?$/.test(rest)) return { page: "activity" };
  return { page: "transactions" };
}

export const hrefOf = (route: Route): string => {
  if (route.page === "transaction") return `${BASE}/transactions/${encodeURIComponent(route.id)}`;
  if (route.page === "callbacks") return `${BASE}/callbacks`;
  if (route.page === "wallets") return `${BASE}/wallets`;
  if (route.page === "activity") return `${BASE}/activity`;
  return `${BASE}/`;
};

export function navigate(href: string): void {
  history.pushState(null, "", href);
  dispatchEvent(new PopStateEvent("popstate"));
}

/** A plain left click on a console link moves without reloading; others (new tab, etc.) as the browser does. */
export function onLinkClick(e: MouseEvent): void {
  if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  const anchor = e.currentTarget as HTMLAnchorElement;
  e.preventDefault();
  navigate(anchor.getAttribute("href") ?? `${BASE}/`);
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.pathname));
  useEffect(() => {
    const update = () => setRoute(parseRoute(location.pathname));
    addEventListener("popstate", update);
    return () => removeEventListener("popstate", update);
  }, []);
  return route;
}
