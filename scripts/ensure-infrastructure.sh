#!/usr/bin/env bash
# Makes sure PostgreSQL, Redis and NATS (with JetStream) answer on their standard local ports, starting
# any that is down with the machine's own packages. Used by .ci/run and `npm start`.
set -euo pipefail

up() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

wait_for() {
  local name=$1 port=$2
  for _ in $(seq 1 50); do up "$port" && return 0; sleep 0.2; done
  echo "ensure-infrastructure: $name did not come up on port $port" >&2
  return 1
}

need_root() {
  if [ "$(id -u)" != 0 ]; then
    echo "ensure-infrastructure: $1 is down and starting it needs root; run: sudo $2" >&2
    exit 1
  fi
}

if ! up 5432; then
  cmd="pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql 2>/dev/null | head -1) main start"
  need_root PostgreSQL "$cmd"
  echo "starting PostgreSQL"
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start
  wait_for PostgreSQL 5432
fi

if ! up 6379; then
  cmd='redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no --dir /var/lib/redis --logfile /var/log/redis/ci.log'
  need_root Redis "$cmd"
  echo "starting Redis"
  mkdir -p /var/lib/redis /var/log/redis
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no --dir /var/lib/redis --logfile /var/log/redis/ci.log
  wait_for Redis 6379
fi

if ! up 4222; then
  cmd='start-stop-daemon --start --oknodo --background --exec /usr/sbin/nats-server -- -a 127.0.0.1 -p 4222 -js -sd /var/lib/nats-server -l /var/log/nats-server.log'
  need_root NATS "$cmd"
  echo "starting NATS"
  mkdir -p /var/lib/nats-server
  start-stop-daemon --start --oknodo --background --exec /usr/sbin/nats-server -- -a 127.0.0.1 -p 4222 -js -sd /var/lib/nats-server -l /var/log/nats-server.log
  wait_for NATS 4222
fi

echo "infrastructure up: PostgreSQL :5432, Redis :6379, NATS :4222"
