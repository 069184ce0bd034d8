/** Of the HTTP request being served: what its jobs carry so their log lines name it (docs/metrics.md, "Logs"). */
export interface RequestContext {
  /** The request's x-request-id. */
  reqId?: string;
  /** The id of the API key that made the request: what the records it stores name as their actor (docs/audit.md). */
  keyId?: string;
}
