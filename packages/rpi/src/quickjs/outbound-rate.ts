/**
 * The outbound rate of one QuickJS instance (QJS-18): a fixed one-second window of the bytes and
 * frames the extension sent (QuickJsOptions.maxOutboundBytesPerSecond and
 * maxOutboundFramesPerSecond). Every frame is copied into the host's heap: the rate bounds how
 * fast an extension can move memory there (a loop of 1 MiB updates would otherwise run for its
 * whole budget).
 */
export class OutboundRate {
  private windowStart = -Infinity;
  private windowBytes = 0;
  private windowFrames = 0;
  /** Whether this window already told the host that frames are refused. */
  private windowRefused = false;

  constructor(
    private readonly bytesPerSecond: number,
    private readonly framesPerSecond: number,
  ) {}

  /**
   * Counts a frame of `bytes` sent at `now` (performance.now()), or answers why it may not be sent;
   * `first` is true for the first refusal of its window, the one the host is told of.
   */
  take(bytes: number, now: number): { refusal: string; first: boolean } | null {
    if (now - this.windowStart >= 1000) {
      this.windowStart = now;
      this.windowBytes = 0;
      this.windowFrames = 0;
      this.windowRefused = false;
    }
    const rate = this.bytesPerSecond;
    const frames = this.framesPerSecond;
    let refusal: string | null = null;
    if (this.windowBytes + bytes > rate) {
      refusal =
        `__octet_host.send: the extension sent ${this.windowBytes} bytes of frames within the last second; ` +
        `this ${bytes}-byte frame would pass the outbound rate limit of ${rate} bytes per second ` +
        `(maxOutboundBytesPerSecond); it was not sent`;
    } else if (this.windowFrames + 1 > frames) {
      refusal =
        `__octet_host.send: the extension sent ${this.windowFrames} frames within the last second, the ` +
        `outbound rate limit of ${frames} frames per second (maxOutboundFramesPerSecond); this frame was not sent`;
    }
    if (refusal !== null) {
      const first = !this.windowRefused;
      this.windowRefused = true;
      return { refusal, first };
    }
    this.windowBytes += bytes;
    this.windowFrames++;
    return null;
  }
}
