// Refusals with a retry hint: when and how often a call the service refused is sent again.
//
// A call refused with RESOURCE_EXHAUSTED and a retry hint (a google.rpc.RetryInfo in the status
// details, or the grpc-retry-pushback-ms trailer: the caller over its rate limit, or the service
// past its capacity) did nothing, so it may be sent again: never before the hint, and a little after
// it (a random hint x [1, 1 + jitter), so that clients refused at the same moment do not all come back
// at the same moment), at most `refusals` times in a row and within `timeoutMs` of the first refusal.
// A RESOURCE_EXHAUSTED without a hint is not sent again. The same rules as the Python client
// (cardgames.clients.retries).

import grpc from "@grpc/grpc-js";

/** The defaults: 10 refusals in a row at most, within 60 s, each resend after hint x [1, 1.5). */
export const RETRY = Object.freeze({ refusals: 10, timeoutMs: 60000, jitter: 0.5 });
export const PUSHBACK = "grpc-retry-pushback-ms";
const RETRY_INFO = "type.googleapis.com/google.rpc.RetryInfo";
const ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo";

/** The fields of one protobuf message, as [number, value] pairs (varints as Numbers, the rest as Buffers). */
function fields(buffer) {
  const found = [];
  let at = 0;
  const varint = () => {
    let value = 0;
    let scale = 1;
    for (;;) {
      if (at >= buffer.length) throw new RangeError("truncated varint");
      const byte = buffer[at];
      at += 1;
      value += (byte & 0x7f) * scale;
      scale *= 128;
      if (byte < 0x80) return value;
    }
  };
  while (at < buffer.length) {
    const key = varint();
    const [number, type] = [Math.floor(key / 8), key % 8];
    if (type === 0) found.push([number, varint()]);
    else if (type === 2) {
      const length = varint();
      found.push([number, buffer.subarray(at, at + length)]);
      at += length;
    } else if (type === 1 || type === 5) at += type === 1 ? 8 : 4;
    else throw new RangeError(`wire type ${type}`);
  }
  return found;
}

/** The details of the call's rich status (google.rpc.Status), as [typeUrl, Buffer] pairs. */
export function statusDetails(error) {
  const bytes = error?.metadata?.get?.("grpc-status-details-bin")?.[0];
  if (!bytes) return [];
  try {
    return fields(Buffer.from(bytes))
      .filter(([number]) => number === 3)
      .map(([, any]) => {
        const parts = fields(any);
        const typeUrl = parts.find(([number]) => number === 1)?.[1]?.toString("utf8") ?? "";
        return [typeUrl, parts.find(([number]) => number === 2)?.[1] ?? Buffer.alloc(0)];
      });
  } catch {
    return []; // details that do not parse: as if there were none
  }
}

/** The call's google.rpc.ErrorInfo as {reason, domain, metadata}, or null. */
export function errorInfo(error) {
  const found = statusDetails(error).find(([typeUrl]) => typeUrl === ERROR_INFO);
  if (!found) return null;
  const info = { reason: "", domain: "", metadata: {} };
  for (const [number, value] of fields(found[1])) {
    if (number === 1) info.reason = value.toString("utf8");
    else if (number === 2) info.domain = value.toString("utf8");
    else if (number === 3) {
      const entry = fields(value);
      const key = entry.find(([n]) => n === 1)?.[1]?.toString("utf8") ?? "";
      info.metadata[key] = entry.find(([n]) => n === 2)?.[1]?.toString("utf8") ?? "";
    }
  }
  return info;
}

/**
 * The retry hint of a refused call in milliseconds: its RetryInfo, else the grpc-retry-pushback-ms
 * trailer, else ErrorInfo's retry_after_ms; null when it was no RESOURCE_EXHAUSTED or has no hint (a
 * pushback that is not a whole number of ms, such as -1, says not to retry: null too).
 */
export function retryHint(error) {
  if (error?.code !== grpc.status.RESOURCE_EXHAUSTED) return null;
  const retry = statusDetails(error).find(([typeUrl]) => typeUrl === RETRY_INFO);
  if (retry) {
    const delay = fields(retry[1]).find(([number]) => number === 1)?.[1];
    if (delay) {
      const parts = Object.fromEntries(fields(delay));
      return (parts[1] ?? 0) * 1000 + (parts[2] ?? 0) / 1e6;
    }
  }
  const pushback = error.metadata?.get?.(PUSHBACK)?.[0];
  if (pushback !== undefined) return /^\d+$/.test(String(pushback)) ? Number(pushback) : null;
  const hinted = errorInfo(error)?.metadata?.retry_after_ms;
  return hinted !== undefined && /^\d+$/.test(hinted) ? Number(hinted) : null;
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The refusals in a row of one call (or one stream's opening). `pause(error)` is the wait in ms before
 * sending it again, or null: no hint, or past the bounds (then `error.refusals` says how many refusals in
 * a row it was, `error.retryAfterMs` the last hint). `reset()` after an answer.
 */
export class Refusals {
  constructor(retry = RETRY, random = Math.random) {
    this.retry = { ...RETRY, ...retry };
    this.random = random;
    this.reset();
  }

  reset() {
    this.count = 0;
    this.since = null;
  }

  pause(error) {
    const hint = retryHint(error);
    if (hint === null) return null;
    const now = Date.now();
    this.since ??= now;
    this.count += 1;
    error.refusals = this.count;
    error.retryAfterMs = hint;
    if (this.count > this.retry.refusals) return null;
    const wait = hint * (1 + this.retry.jitter * this.random());
    // setTimeout may fire up to 1 ms before its delay: round up, so that no resend comes before the hint.
    const pause = Math.ceil(wait) + 1;
    return now + pause - this.since <= this.retry.timeoutMs ? pause : null;
  }
}
