/** How a refused stdout line is named in a diagnostic, by the decoder's error code. */
export function describeFrameError(code: string): string {
  switch (code) {
    case "frame_too_large":
      return "oversized frame";
    case "invalid_json":
      return "stdout is not JSON";
    case "carriage_return":
      return "CR in a frame";
    case "blank_line":
      return "blank line on stdout";
    case "invalid_utf8":
      return "invalid UTF-8 on stdout";
    default:
      return "unreadable stdout";
  }
}
