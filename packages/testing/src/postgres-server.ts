import { Client } from "pg";
import { withDatabase } from "@relay/db";

const LOCAL_SERVER = "postgresql://postgres@127.0.0.1:5432/postgres";

/**
 * The Postgres server tests create their databases on, as a URL of its maintenance database:
 * RELAY_TEST_POSTGRES_URL, else the server of DATABASE_URL, else the local development server.
 */
export function testServerUrl(): string {
  const explicit = process.env.RELAY_TEST_POSTGRES_URL;
  if (explicit) return explicit;
  const app = process.env.DATABASE_URL;
  return app ? withDatabase(app, "postgres") : LOCAL_SERVER;
}

/** Runs `fn` on a short-lived connection to the server's maintenance database. */
export async function withServerClient<T>(serverUrl: string, fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: serverUrl, application_name: "relay-test-setup" });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}
