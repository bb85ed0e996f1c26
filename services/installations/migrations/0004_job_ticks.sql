-- The scheduled ticks this service has done, with the reply it gave. The jobs service may ask for one
-- tick more than once (a retry after a lost reply, or a second replica taking over a tick whose replica
-- was killed); the tick's work and its row commit together, so a tick asked for again finds its row and
-- gets the same reply without the work being done twice. The log cleanup tick forgets rows after a week.
CREATE TABLE job_ticks (
  schedule text NOT NULL,
  tick_at timestamptz NOT NULL,
  result jsonb NOT NULL,
  done_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (schedule, tick_at)
);
CREATE INDEX job_ticks_done_at ON job_ticks (done_at);
