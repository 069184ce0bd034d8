import { Router } from "express";
import { encodeCall, parseFunctionSignature } from "@relay/chain";
import { parseOr, requireJsonObject } from "../middleware/validate";
import type { ChainReader } from "../services/chain-reader";
import { readContractRequest } from "./call.schema";

export interface CallRoutesDeps {
  reader: Pick<ChainReader, "call">;
}

/**
 * POST /transact/call (Syndicate's "Call View Function"): a read-only eth_call with the decoded
 * result, so a client needs no RPC endpoint of its own. Any project's key may call it; nothing is
 * stored and nothing is signed.
 */
export function callRoutes(deps: CallRoutesDeps): Router {
  const router = Router();
  router.post("/transact/call", async (req, res) => {
    const body = parseOr(readContractRequest, requireJsonObject(req.body));
    const fragment = parseFunctionSignature(body.functionSignature);
    const encoded = encodeCall(fragment, body.args);
    // res.json(undefined) would send nothing: a result is always a value.
    res.json(await deps.reader.call(BigInt(body.chainId), body.contractAddress, fragment, encoded));
  });
  return router;
}
