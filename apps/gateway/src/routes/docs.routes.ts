import { Router } from "express";
import swaggerUi from "swagger-ui-express";

/**
 * `/openapi.json` (the document with this install's examples, reference/) and a readable
 * reference at `/docs`, which loads that document from `/openapi.json`.
 */
export function docsRoutes(document: () => object): Router {
  const router = Router();
  router.get("/openapi.json", (_req, res) => {
    res.json(document());
  });
  router.use("/docs", swaggerUi.serve, swaggerUi.setup(undefined, { swaggerUrl: "/openapi.json", customSiteTitle: "Relay API reference" }));
  return router;
}
