import { appRoleName } from "./app-role";

/** The quick start's login role for the apps: a member of relay_app, so never relay_app itself. */
describe("appRoleName", () => {
  it("is <database>_apps, also for the default database relay (relay_app cannot be granted to itself)", () => {
    expect(appRoleName("relay")).toBe("relay_apps");
    expect(appRoleName("relay")).not.toBe("relay_app");
    expect(appRoleName("my-db.1")).toBe("my_db_1_apps");
  });

  it("fits Postgres' 63-byte names", () => {
    expect(appRoleName("x".repeat(200))).toHaveLength(63);
  });
});
