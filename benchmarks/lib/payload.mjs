// The small-call payload: arguments of about 100 bytes as JSON, echoed back as the result.
export const SMALL_ARGS = Object.freeze({ text: "octet benchmark payload: ".padEnd(88, "x") });
