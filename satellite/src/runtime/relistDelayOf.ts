/**
 * The wait before a server's next scheduled re-list of its tools: anywhere from half to one and a half
 * times the interval. Servers started together (a satellite's start, a configuration with a hundred
 * installations) would otherwise all list at the same moments; drawn afresh each time, their re-lists
 * spread evenly over the interval and stay spread, while each server still averages one per interval.
 */
export function relistDelayOf(intervalMs: number, random: () => number = Math.random): number {
  return Math.floor(intervalMs * (0.5 + random()));
}
