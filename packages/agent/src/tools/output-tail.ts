/**
 * The last `cap` bytes of a stream of output chunks, with a count of what was dropped before them:
 * a command's end (the error, the summary line) matters more than its start. Memory stays near the
 * cap however much the command prints.
 */
export class OutputTail {
  private chunks: Buffer[] = [];
  private kept = 0;
  /** Bytes received in all. */
  total = 0;

  constructor(private readonly cap: number) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.kept += chunk.length;
    this.total += chunk.length;
    // Drop whole chunks that lie entirely before the last `cap` bytes.
    while (this.chunks.length > 1 && this.kept - this.chunks[0]!.length >= this.cap) {
      this.kept -= this.chunks.shift()!.length;
    }
  }

  /** The kept text (invalid UTF-8 shown as U+FFFD) and how many bytes before it were dropped. */
  text(): { text: string; dropped: number } {
    let bytes = Buffer.concat(this.chunks);
    if (bytes.length > this.cap) bytes = bytes.subarray(bytes.length - this.cap);
    // A cut inside a character leaves continuation bytes at the start: skip them, not show U+FFFD.
    let start = 0;
    while (start < 3 && start < bytes.length && (bytes[start]! & 0xc0) === 0x80) start++;
    bytes = bytes.subarray(start);
    return { text: new TextDecoder("utf-8").decode(bytes), dropped: this.total - bytes.length };
  }
}
