import { Router } from "express";
import swaggerUi from "swagger-ui-express";

/** `/openapi.json` (generated once at start) and a readable reference at `/docs`. */
export function docsRoutes(document: object): Router {
  const router = Router();
  router.get("/openapi.json", (_req, res) => {
    res.json(document);
  });
  router.use("/docs", swaggerUi.serve, swaggerUi.setup(document, { customSiteTitle: "Relay API reference" }));
  return router;
}
