import type { Server, ServerResponse } from "node:http";

/**
 * Cuts the connection of a client that does not take its answer. Node writes an answer into the
 * socket and waits for it to leave; a client that sends requests (pipelined, or one whose answer
 * is larger than the socket buffers) and never reads leaves that write pending forever, and Node
 * has no timeout for it: neither the request timeouts (the request was received) nor the
 * keep-alive one (it starts once the answer is out) apply, and an answer that closes the
 * connection only closes it once written. An answer not taken `withinMs` after it was finished
 * costs the connection; one taken in time changes nothing.
 */
export function cutAnswersNotTaken(server: Server, withinMs: number): void {
  server.on("request", (_req, res: ServerResponse) => {
    // 'prefinish': the answer is complete and is this connection's current one (a pipelined
    // answer waits for those before it); 'finish': its last byte left for the kernel.
    res.once("prefinish", () => {
      const socket = res.socket;
      if (!socket) return;
      const cut = setTimeout(() => socket.destroy(), withinMs).unref();
      const keep = () => clearTimeout(cut);
      res.once("finish", keep);
      res.once("close", keep);
    });
  });
}
