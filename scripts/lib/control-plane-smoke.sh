# shellcheck shell=bash
# Sourced by scripts/provision-control-plane.sh. Proves a bin directory really yields a working
# control plane: etcd plus kube-apiserver on free loopback ports, an authenticated /readyz, and one
# write that reaches etcd. The flag set here is the one documented in docs/control-plane.md for the
# TypeScript test fixture; change both together.

SMOKE_ADMIN_TOKEN=nudger-smoke-admin-token
SMOKE_READY_ATTEMPTS=240 # x 0.25 s: a cold kube-apiserver on 2 cores needs roughly 5-10 s

smoke_log() { echo "nudger control-plane smoke: $*" >&2; }

# Something already listening answers the /dev/tcp connect; a refused connect means the port is
# free now. Another process could still take it before we bind, which then shows as a start error.
smoke_free_port() {
  local port attempt
  for attempt in $(seq 1 100); do
    port=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "$port"
      return
    fi
  done
  smoke_log "found no free loopback port after $attempt attempts"
  return 1
}

# Polls until $2 (a command) succeeds, the process $1 dies, or the attempts run out.
smoke_wait_for() {
  local pid="$1" what="$2"
  shift 2
  local attempt
  for attempt in $(seq 1 "$SMOKE_READY_ATTEMPTS"); do
    if "$@"; then return 0; fi
    if ! kill -0 "$pid" 2>/dev/null; then
      smoke_log "$what exited before becoming ready"
      return 1
    fi
    sleep 0.25
  done
  smoke_log "$what not ready after $attempt polls"
  return 1
}

smoke_etcd_healthy() {
  curl -fsS --max-time 2 "http://127.0.0.1:$SMOKE_ETCD_PORT/health" 2>/dev/null | grep -q '"health":"true"'
}

smoke_apiserver_call() {
  # $1 method, $2 path, $3 optional JSON body; prints the HTTP status, body goes to $SMOKE_DIR/body.
  local args=(-sk --max-time 5 -o "$SMOKE_DIR/body" -w '%{http_code}' -X "$1"
    -H "Authorization: Bearer $SMOKE_ADMIN_TOKEN")
  if [ -n "${3:-}" ]; then args+=(-H 'Content-Type: application/json' --data "$3"); fi
  curl "${args[@]}" "https://127.0.0.1:$SMOKE_APISERVER_PORT$2" 2>/dev/null || true
}

smoke_apiserver_ready() {
  [ "$(smoke_apiserver_call GET /readyz)" = 200 ]
}

smoke_dump_logs() {
  local f
  for f in "$SMOKE_DIR"/etcd.log "$SMOKE_DIR"/kube-apiserver.log; do
    if [ -f "$f" ]; then
      smoke_log "last lines of $(basename "$f"):"
      tail -n 25 "$f" >&2
    fi
  done
}

# Runs in a subshell so its EXIT trap always stops both servers and removes the temp dir.
smoke_test_control_plane() (
  local bin_dir="$1"
  SMOKE_DIR="$(mktemp -d "${TMPDIR:-/tmp}/nudger-control-plane-smoke.XXXXXX")"
  local etcd_pid="" apiserver_pid="" ok=0
  # shellcheck disable=SC2317 # invoked through the trap
  smoke_cleanup() {
    if [ "$ok" -ne 1 ]; then smoke_dump_logs; fi
    local pid
    for pid in $apiserver_pid $etcd_pid; do
      kill "$pid" 2>/dev/null || true
      wait "$pid" 2>/dev/null || true
    done
    rm -rf "$SMOKE_DIR"
  }
  trap smoke_cleanup EXIT

  SMOKE_ETCD_PORT="$(smoke_free_port)"
  local peer_port
  peer_port="$(smoke_free_port)"
  SMOKE_APISERVER_PORT="$(smoke_free_port)"
  local start=$SECONDS

  "$bin_dir/etcd" \
    --name smoke \
    --data-dir "$SMOKE_DIR/etcd-data" \
    --listen-client-urls "http://127.0.0.1:$SMOKE_ETCD_PORT" \
    --advertise-client-urls "http://127.0.0.1:$SMOKE_ETCD_PORT" \
    --listen-peer-urls "http://127.0.0.1:$peer_port" \
    --initial-advertise-peer-urls "http://127.0.0.1:$peer_port" \
    --initial-cluster "smoke=http://127.0.0.1:$peer_port" \
    >"$SMOKE_DIR/etcd.log" 2>&1 &
  etcd_pid=$!
  smoke_wait_for "$etcd_pid" etcd smoke_etcd_healthy || exit 1

  openssl genrsa -out "$SMOKE_DIR/sa.key" 2048 2>/dev/null
  printf '%s,smoke-admin,smoke-admin-uid,"system:masters"\n' "$SMOKE_ADMIN_TOKEN" >"$SMOKE_DIR/tokens.csv"
  mkdir -p "$SMOKE_DIR/certs"

  "$bin_dir/kube-apiserver" \
    --etcd-servers "http://127.0.0.1:$SMOKE_ETCD_PORT" \
    --bind-address 127.0.0.1 \
    --advertise-address 127.0.0.1 \
    --secure-port "$SMOKE_APISERVER_PORT" \
    --cert-dir "$SMOKE_DIR/certs" \
    --service-cluster-ip-range 10.0.0.0/24 \
    --service-account-issuer https://kubernetes.default.svc.cluster.local \
    --service-account-key-file "$SMOKE_DIR/sa.key" \
    --service-account-signing-key-file "$SMOKE_DIR/sa.key" \
    --token-auth-file "$SMOKE_DIR/tokens.csv" \
    --authorization-mode RBAC \
    --disable-admission-plugins ServiceAccount \
    --allow-privileged=true \
    >"$SMOKE_DIR/kube-apiserver.log" 2>&1 &
  apiserver_pid=$!
  smoke_wait_for "$apiserver_pid" kube-apiserver smoke_apiserver_ready || exit 1
  smoke_log "etcd and kube-apiserver ready in $((SECONDS - start))s"

  local status
  status="$(smoke_apiserver_call GET /version)"
  if [ "$status" != 200 ]; then
    smoke_log "GET /version answered $status"
    exit 1
  fi
  smoke_log "server version $(grep -o '"gitVersion": *"[^"]*"' "$SMOKE_DIR/body" | cut -d'"' -f4)"

  status="$(smoke_apiserver_call POST /api/v1/namespaces '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"nudger-smoke"}}')"
  if [ "$status" != 201 ]; then
    smoke_log "creating a namespace answered $status: $(head -c 400 "$SMOKE_DIR/body")"
    exit 1
  fi

  status="$(smoke_apiserver_call GET /apis/apiextensions.k8s.io/v1)"
  if [ "$status" != 200 ]; then
    smoke_log "GET /apis/apiextensions.k8s.io/v1 answered $status"
    exit 1
  fi

  # A custom resource round trip: a broken JSON codec in the binary shows here, not in a namespace.
  status="$(smoke_apiserver_call POST /apis/apiextensions.k8s.io/v1/customresourcedefinitions '{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"smokes.nudger.dev"},"spec":{"group":"nudger.dev","scope":"Namespaced","names":{"plural":"smokes","singular":"smoke","kind":"Smoke"},"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}')"
  if [ "$status" != 201 ]; then
    smoke_log "creating a CRD answered $status: $(head -c 400 "$SMOKE_DIR/body")"
    exit 1
  fi
  local attempt
  for attempt in $(seq 1 50); do
    status="$(smoke_apiserver_call POST /apis/nudger.dev/v1/namespaces/nudger-smoke/smokes '{"apiVersion":"nudger.dev/v1","kind":"Smoke","metadata":{"name":"one","labels":{"a":"b"}},"spec":{"m":{"k":"v"}}}')"
    [ "$status" = 201 ] && break
    sleep 0.2
  done
  if [ "$status" != 201 ] || ! kill -0 "$apiserver_pid" 2>/dev/null; then
    smoke_log "creating a custom resource answered $status (apiserver alive: $(kill -0 "$apiserver_pid" 2>/dev/null && echo yes || echo no)): $(head -c 400 "$SMOKE_DIR/body")"
    exit 1
  fi

  # The static token must be the only way in: an anonymous request has to be refused.
  status="$(curl -sk --max-time 5 -o /dev/null -w '%{http_code}' "https://127.0.0.1:$SMOKE_APISERVER_PORT/api/v1/namespaces" || true)"
  if [ "$status" != 401 ] && [ "$status" != 403 ]; then
    smoke_log "an anonymous request answered $status instead of 401/403"
    exit 1
  fi

  ok=1
  smoke_log "passed: /readyz ok, namespace and custom resource created, anonymous refused"
)
