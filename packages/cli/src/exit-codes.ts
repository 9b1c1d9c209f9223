/** The exit statuses of `octet`, relied on by scripts. */
export const EXIT_OK = 0;
/** The tool or command ran and reported an error result. */
export const EXIT_TOOL_ERROR = 1;
/** The command line was wrong. */
export const EXIT_USAGE = 2;
/** An extension, tool or command could not be started or reached. */
export const EXIT_UNAVAILABLE = 3;
/** Interrupted by the user (Ctrl-C twice, or a signal). */
export const EXIT_INTERRUPTED = 130;
