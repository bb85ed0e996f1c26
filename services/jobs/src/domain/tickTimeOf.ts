/**
 * The scheduled time of the tick a job belongs to. BullMQ names each job of a Job Scheduler
 * `repeat:<scheduler id>:<scheduled millis>` and keeps that id through every retry, so a retried tick
 * reports the same time (and asks the owning service for the same work). `timestamp`, the time the
 * job record was created, is a fallback that only a job added by hand would need.
 */
export function tickTimeOf(job: { id?: string | undefined; timestamp: number }, schedulerId: string): Date {
  const prefix = `repeat:${schedulerId}:`;
  if (job.id?.startsWith(prefix)) {
    const millis = Number(job.id.slice(prefix.length));
    if (Number.isSafeInteger(millis) && millis > 0) return new Date(millis);
  }
  return new Date(job.timestamp);
}
