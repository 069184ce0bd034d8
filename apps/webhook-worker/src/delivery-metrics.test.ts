import { deliveryResultOf } from "./delivery-metrics";

describe("delivery result", () => {
  const response = (status: number) => ({ status, durationMs: 1 }) as never;
  const failure = (error: string) => ({ status: 0, error, message: "x", durationMs: 1 }) as never;

  it("names each attempt's result by what the receiver (or the network) answered", () => {
    expect(deliveryResultOf(response(200))).toBe("delivered");
    expect(deliveryResultOf(response(204))).toBe("delivered");
    expect(deliveryResultOf(response(410))).toBe("gone");
    expect(deliveryResultOf(response(500))).toBe("failed_status");
    expect(deliveryResultOf(response(302))).toBe("failed_status");
    expect(deliveryResultOf(failure("timeout"))).toBe("network_error");
    expect(deliveryResultOf(failure("connect-failed"))).toBe("network_error");
    expect(deliveryResultOf(failure("refused-address"))).toBe("refused");
    expect(deliveryResultOf(failure("bad-url"))).toBe("refused");
  });
});
