import type { RequestHandler } from "express";
import { operatorTokenMatches } from "@relay/core";

/**
 * The operator credential of admin pages: ADMIN_TOKEN as a Bearer token, or as the password of
 * HTTP Basic (any user name) so a browser asks for it. 401 JSON otherwise.
 */
export function adminAuth(token: string): RequestHandler {
  return (req, res, next) => {
    if (operatorTokenMatches(req.headers.authorization, token)) {
      next();
      return;
    }
    res
      .status(401)
      .set("www-authenticate", 'Basic realm="relay admin", charset="UTF-8"')
      .json({ message: "The admin dashboard needs the admin token: HTTP Basic with ADMIN_TOKEN as the password, or Authorization: Bearer <ADMIN_TOKEN>" });
  };
}
