import { isPublicUnicast, nonPublicRange, refusedRange } from "./address-policy";

// Pure address arithmetic: nothing here opens a socket.
describe("nonPublicRange", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.255.255.254", "loopback"],
    ["::1", "loopback"],
    ["10.0.0.1", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["169.254.169.254", "linkLocal"],
    ["fe80::1", "linkLocal"],
    ["fe80::1%eth0", "linkLocal"],
    ["fc00::1", "uniqueLocal"],
    ["fd12:3456::1", "uniqueLocal"],
    ["0.0.0.0", "unspecified"],
    ["::", "unspecified"],
    ["224.0.0.1", "multicast"],
    ["ff02::1", "multicast"],
    ["255.255.255.255", "broadcast"],
    ["100.64.0.1", "carrierGradeNat"],
    ["192.0.2.1", "reserved"],
    ["240.0.0.1", "reserved"],
    ["2001:db8::1", "reserved"],
    // IPv4-mapped and NAT64 forms are judged by the IPv4 host they reach.
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::ffff:10.0.0.1", "private"],
    ["::ffff:169.254.169.254", "linkLocal"],
    ["64:ff9b::a00:1", "private"],
    ["64:ff9b::127.0.0.1", "loopback"],
    ["64:ff9b:1::a00:1", "rfc6052"],
    ["2002:7f00:1::1", "6to4"],
    ["2001::1", "teredo"],
    // IPv4-compatible (deprecated) and other space outside 2000::/3.
    ["::7f00:1", "not global unicast"],
    ["fec0::1", "deprecatedSiteLocal"],
    ["4000::1", "not global unicast"],
    ["localhost", "not an IP address"],
    ["0x7f.1", "not an IP address"],
    ["", "not an IP address"],
  ])("%s is %s", (address, range) => {
    expect(nonPublicRange(address)).toBe(range);
    expect(isPublicUnicast(address)).toBe(false);
  });

  it.each(["8.8.8.8", "1.1.1.1", "172.32.0.1", "100.128.0.1", "2606:4700:4700::1111", "::ffff:8.8.8.8", "64:ff9b::808:808"])(
    "%s is public",
    (address) => {
      expect(nonPublicRange(address)).toBeNull();
    },
  );
});

describe("refusedRange with private networks allowed", () => {
  it.each(["127.0.0.1", "::1", "10.0.0.5", "192.168.1.10", "fd12:3456::1", "100.64.0.1"])("lets %s through", (address) => {
    expect(refusedRange(address, true)).toBeNull();
  });

  it.each([
    ["fd00:ec2::254", "metadata service"],
    ["fd00:ec2:0:0:0:0:0:254", "metadata service"],
    ["100.100.100.200", "metadata service"],
    ["::ffff:100.100.100.200", "metadata service"],
    // Through a NAT64 gateway (RFC 6052's well-known prefix), as an AAAA record may give it.
    ["64:ff9b::6464:64c8", "metadata service"],
    ["64:ff9b::100.100.100.200", "metadata service"],
    ["64:ff9b::a9fe:a9fe", "linkLocal"],
    ["169.254.169.254", "linkLocal"],
    ["169.254.170.2", "linkLocal"],
  ])("still refuses the cloud metadata service at %s (%s)", (address, why) => {
    expect(refusedRange(address, true)).toBe(why);
  });
});
