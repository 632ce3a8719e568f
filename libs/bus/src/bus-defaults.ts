/** Defaults shared by both adapters, so switching adapter changes no behaviour. */
export const DEFAULT_ACK_WAIT_MS = 30_000;
export const DEFAULT_MAX_DELIVER = 10;
/** Unacked messages one durable may have out at once: bounds in-flight handlers. */
export const DEFAULT_MAX_ACK_PENDING = 512;
