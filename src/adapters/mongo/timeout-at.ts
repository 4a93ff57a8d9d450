/**
 * Runs `onTimeout` at `deadline`, a performance.now() instant; at once (next turn) when it is already past, as
 * a request's deadline may be by the time storage sets its timer. Node would print a warning for a negative delay.
 */
export function setTimeoutAt(onTimeout: () => void, deadline: number): NodeJS.Timeout {
  return setTimeout(onTimeout, Math.max(0, deadline - performance.now()));
}
