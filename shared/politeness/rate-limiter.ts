/**
 * A global token bucket: at most `ratePerSecond` requests a second across all hosts, with a
 * burst of one second's worth. A rate of 0 means no cap.
 */
export class RateLimiter {
  private tokens: number;
  private last: number;
  private readonly burst: number;

  constructor(
    private readonly ratePerSecond: number,
    now: number,
  ) {
    this.burst = Math.max(1, ratePerSecond);
    this.tokens = this.burst;
    this.last = now;
  }

  /** Takes a token if one is available; otherwise returns how many ms until one is. */
  tryTake(now: number): number {
    if (this.ratePerSecond <= 0) return 0;
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) * this.ratePerSecond) / 1000);
    this.last = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return 0;
    }
    return Math.ceil(((1 - this.tokens) * 1000) / this.ratePerSecond);
  }
}
