import { test } from "node:test";
import assert from "node:assert/strict";
import { OutboundRate } from "../src/quickjs/outbound-rate.js";

test(
  "issue 14.3: the outbound rate counts bytes and frames per one-second window and names the limit it " + "refuses",
  () => {
    const rate = new OutboundRate(100, 3);
    assert.equal(rate.take(60, 0), null);
    assert.equal(rate.take(40, 10), null);
    const bytes = rate.take(1, 20);
    assert.deepEqual(bytes, {
      refusal:
        "__octet_host.send: the extension sent 100 bytes of frames within the last second; this 1-byte frame would " +
        "pass the outbound rate limit of 100 bytes per second (maxOutboundBytesPerSecond); it was not sent",
      first: true,
    });
    assert.equal(rate.take(1, 30)?.first, false, "only the window's first refusal is to be told");
    // A new window starts a second after the last one began.
    assert.equal(rate.take(1, 1000), null);
    assert.equal(rate.take(1, 1001), null);
    assert.equal(rate.take(1, 1002), null);
    const frames = rate.take(1, 1003);
    assert.equal(frames?.first, true);
    assert.match(frames?.refusal ?? "", /sent 3 frames within the last second, the outbound rate limit of 3 frames/);
  },
);
