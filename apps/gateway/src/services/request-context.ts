/** Of the HTTP request being served: what its jobs carry so their log lines name it (docs/metrics.md, "Logs"). */
export interface RequestContext {
  /** The request's x-request-id. */
  reqId?: string;
}
