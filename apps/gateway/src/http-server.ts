import { createServer, type RequestListener, type Server } from "node:http";
import { answerClientErrorsAsJson } from "./client-errors";

/**
 * The gateway's HTTP server. Node would answer an HTTP/1.1 request without Host with an empty 400
 * before the app sees it; the app refuses it itself (middleware/require-host.ts) so the answer is
 * JSON like every other error. Requests the parser refuses are answered as JSON too.
 */
export function createHttpServer(app: RequestListener): Server {
  const server = createServer({ requireHostHeader: false }, app);
  answerClientErrorsAsJson(server);
  return server;
}
