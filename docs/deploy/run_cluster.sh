#!/usr/bin/env bash
# `make run-cluster`: N app processes on this machine sharing Redis (rooms, timers, fan-out)
# and the match database, behind nginx on PORT when nginx is installed (else use the
# processes' own ports). Ctrl-C stops everything this script started.
#   N=3 PORT=8000 BASE_PORT=8001 REDIS_URL=... DATABASE_URL=... make run-cluster
#   PIN=1 make run-cluster: process i on CPU i modulo the CPUs (taskset; docs/deploy.md)
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
PY=${PY:-$ROOT/.venv/bin/python}
case $PY in /*) ;; */*) PY=$ROOT/$PY ;; esac
N=${N:-2}
PORT=${PORT:-8000}
BASE_PORT=${BASE_PORT:-8001}
HOST=${HOST:-127.0.0.1}
RUN=$ROOT/data/cluster
mkdir -p "$RUN"
export REDIS_URL=${REDIS_URL:-redis://127.0.0.1:6379/0}
# Several processes share the database: PostgreSQL is the right one (SQLite works for a try).
export DATABASE_URL=${DATABASE_URL:-sqlite+aiosqlite:///$ROOT/data/uno.db}

pids=()
stop() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap stop EXIT INT TERM

redis_host=$(echo "$REDIS_URL" | sed -E 's#redis://([^:/]+).*#\1#')
redis_port=$(echo "$REDIS_URL" | sed -E 's#redis://[^:/]+:?([0-9]*).*#\1#')
redis_port=${redis_port:-6379}
if ! redis-cli -h "$redis_host" -p "$redis_port" ping >/dev/null 2>&1; then
  echo "starting redis-server on $redis_host:$redis_port (AOF, fsync every second)"
  mkdir -p "$RUN/redis"
  redis-server --bind "$redis_host" --port "$redis_port" --dir "$RUN/redis" \
    --appendonly yes --appendfsync everysec --save "" >"$RUN/redis.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 50); do redis-cli -h "$redis_host" -p "$redis_port" ping >/dev/null 2>&1 && break; sleep 0.1; done
fi

# Behind nginx every request comes from nginx's address: the processes read the client's
# address from its X-Forwarded-For (the limits per client address count each player).
if command -v nginx >/dev/null 2>&1 && [ -z "${TRUSTED_PROXIES:-}" ]; then
  export TRUSTED_PROXIES=$HOST
fi

upstreams=""
for i in $(seq 0 $((N - 1))); do
  port=$((BASE_PORT + i))
  # Each process has its own working directory (its recorder outbox lives there).
  mkdir -p "$RUN/p$port"
  pin=()
  if [ "${PIN:-0}" = 1 ] && command -v taskset >/dev/null 2>&1; then
    pin=(taskset -c "$((i % $(nproc)))")
  fi
  (cd "$RUN/p$port" && PYTHONPATH=$ROOT exec ${pin[@]+"${pin[@]}"} "$PY" -m uvicorn app.main:app --host "$HOST" \
    --port "$port" --ws-max-size 1048576 >"$RUN/p$port.log" 2>&1) &
  pids+=($!)
  # The first process migrates the database: wait for it before starting the others.
  for _ in $(seq 100); do
    "$PY" -c "import urllib.request as u; u.urlopen('http://$HOST:$port/healthz', timeout=1)" \
      2>/dev/null && break
    sleep 0.2
  done
  echo "process $((i + 1)) on http://$HOST:$port (log: $RUN/p$port.log)"
  upstreams+="    server $HOST:$port;"$'\n'
done

if command -v nginx >/dev/null 2>&1; then
  mkdir -p "$RUN/nginx/logs"
  # docs/deploy/nginx.conf with this machine's processes as the upstream and PORT to listen on.
  UPSTREAMS=$upstreams LISTEN="$HOST:$PORT" "$PY" - docs/deploy/nginx.conf >"$RUN/nginx/site.conf" <<'PYCODE'
import os, re, sys
text = open(sys.argv[1]).read()
servers = os.environ["UPSTREAMS"]
text = re.sub(r"upstream uno \{.*?\n\}", "upstream uno {\n" + servers + "}", text, flags=re.S)
text = re.sub(r"(upstream uno_rooms \{\n    hash \$uri consistent;\n).*?\n\}", lambda m: m.group(1) + servers + "}", text, flags=re.S)
print(text.replace("listen 80;", "listen " + os.environ["LISTEN"] + ";"))
PYCODE
  cat >"$RUN/nginx/nginx.conf" <<CONF
worker_processes 1;
pid $RUN/nginx/nginx.pid;
error_log $RUN/nginx/logs/error.log;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $RUN/nginx; proxy_temp_path $RUN/nginx;
  fastcgi_temp_path $RUN/nginx; uwsgi_temp_path $RUN/nginx; scgi_temp_path $RUN/nginx;
  include $RUN/nginx/site.conf;
}
CONF
  nginx -p "$RUN/nginx" -c "$RUN/nginx/nginx.conf" -g 'daemon off;' &
  pids+=($!)
  echo "nginx balancing on http://$HOST:$PORT"
else
  echo "nginx not installed: open any process's port (apt-get install nginx for one address)"
fi
wait
