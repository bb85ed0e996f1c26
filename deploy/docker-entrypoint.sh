#!/bin/sh
# Maps a process name to its entry file and replaces this shell with Node, so signals reach it. The
# entry files are found from this script's own place (/app/deploy in the image), so the rehearsal runs
# this same script from a checkout.
set -eu
app="$(cd "$(dirname "$0")/.." && pwd)"
case "${1:-}" in
  gateway-api) entry=services/gateway-api/src/main.ts ;;
  settings) entry=services/settings/src/main.ts ;;
  satellite-registry) entry=services/satellite-registry/src/main.ts ;;
  installations) entry=services/installations/src/main.ts ;;
  jobs) entry=services/jobs/src/main.ts ;;
  satellite) entry=satellite/src/main.ts ;;
  *)
    echo "usage: <gateway-api|settings|satellite-registry|installations|jobs|satellite>" >&2
    exit 64
    ;;
esac
shift
exec node "$app/$entry" "$@"
