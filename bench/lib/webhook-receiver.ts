/**
 * The receiver of bench/webhook-delivery.bench.ts, started as its own process (PORT from the
 * environment) so its CPU is counted apart: answers every POST 200 at once, without reading
 * more than it must, and counts the requests and their distinct `webhook-id`s (a duplicate
 * delivery shows as requests > distinct). `GET /count` answers `{requests, distinct, unsigned}`.
 */
import http from "node:http";

const port = Number(process.env.PORT ?? 3999);
let requests = 0;
let unsigned = 0;
const ids = new Set<string>();

const server = http.createServer((req, res) => {
  if (req.method === "GET") {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ requests, distinct: ids.size, unsigned }));
    return;
  }
  requests++;
  const id = req.headers["webhook-id"];
  if (typeof id === "string" && typeof req.headers["webhook-signature"] === "string") ids.add(id);
  else unsigned++;
  req.resume();
  req.on("end", () => {
    res.writeHead(200, { "content-type": "text/plain", "content-length": "2" });
    res.end("ok");
  });
});
server.keepAliveTimeout = 5_000;
server.listen(port, "127.0.0.1");
process.on("SIGTERM", () => process.exit(0));
