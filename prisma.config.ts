// Prisma CLI configuration (Prisma 7 reads the database URL from here, not from the schema).
// Only `prisma generate` runs on our machines; see scripts/generate.sh and DESIGN.md.
import { defineConfig } from "prisma/config";

export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  datasource: { url: process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/relay" },
});
