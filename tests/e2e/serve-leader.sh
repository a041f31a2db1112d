#!/bin/sh
# Two replicas of serve --leader-elect against the fake API server: one
# audits (it holds the Lease kubectl-cpulint, cpulint_audit_leader 1 and
# the audit's series), the other answers webhooks and exports no audit
# series (cpulint_audit_leader 0).  Killed with SIGKILL, the holder hands
# the audit over within the Lease's duration of its last renewal (plus
# one retry period); stopped with SIGTERM, it releases the Lease and the
# other takes over at its next try.  The Lease is read with the real
# kubectl, and a stale write of it is refused with 409 Conflict, as the
# API server's optimistic concurrency does.  Waits are bounded polls.
set -u
BIN=${BIN:?}
SUITE=serve-leader
. tests/lib.sh
. tests/live/apiserver.sh
A_PID= B_PID=
cleanup() {
	for p in $A_PID $B_PID; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	apiserver_stop
	rm -rf "$tmp"
}
trap cleanup EXIT
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
# metrics PORT: serve's /metrics (verified with the test CA), or nothing.
metrics() {
	python3 - "$1" "$tmp/c/ca.crt" <<'PY' 2>/dev/null
import ssl, sys, urllib.request
ctx = ssl.create_default_context(cafile=sys.argv[2])
with urllib.request.urlopen("https://127.0.0.1:%s/metrics" % sys.argv[1],
                            context=ctx, timeout=5) as f:
    sys.stdout.write(f.read().decode())
PY
}
# until_metrics NAME PORT TEXT [SECONDS]: polls until /metrics has TEXT;
# the seconds it took in $took.
until_metrics() {
	name=$1 port=$2 text=$3 limit=${4:-30}
	t0=$(date +%s.%N)
	while :; do
		if metrics "$port" | grep -qF -- "$text"; then
			took=$(echo "$(date +%s.%N) - $t0" | bc)
			ok
			return 0
		fi
		if [ "$(echo "$(date +%s.%N) - $t0 > $limit" | bc)" = 1 ]; then
			bad "$name: after $limit s, /metrics of port $port lacks '$text'"
			metrics "$port" | grep -E "leader|audit_up" | head -5
			return 1
		fi
		sleep 0.2
	done
}
# until_log NAME FILE TEXT: polls up to 10 s until FILE has TEXT; serve's
# main loop says a change of leader at its next one-second tick, which
# can come after the audit the elector started has reached /metrics.
until_log() {
	i=0
	while [ $i -lt 50 ]; do
		grep -qF -- "$3" "$2" && { ok; return 0; }
		sleep 0.2
		i=$((i + 1))
	done
	bad "$1: after 10 s, $2 lacks '$3'"
	return 1
}
holder() {
	kubectl -n cpulint-system get lease kubectl-cpulint \
		-o jsonpath='{.spec.holderIdentity}' 2>/dev/null
}
# start NAME PORT: one replica, its identity from the downward API's
# POD_NAME as in deploy/deployment.yaml.
start() {
	POD_NAME=$1 POD_NAMESPACE=cpulint-system "$BIN" serve \
		--listen "127.0.0.1:$2" --tls-cert-file "$tmp/c/tls.crt" \
		--tls-private-key-file "$tmp/c/tls.key" --audit-interval 1h \
		--leader-elect --leader-elect-lease-duration "${DUR}s" \
		--kubeconfig "$KUBECONFIG" 2>>"$tmp/$1.log" &
}

CPL_CERT_SANS="IP:127.0.0.1" sh deploy/make-cert.sh "$tmp/c" >/dev/null ||
	bad "make-cert.sh failed"
apiserver_start --deny get:nodes/proxy --timeout 240 || finish
trap cleanup EXIT	# apiserver_start set its own EXIT trap
export KUBECONFIG=$APISERVER_DIR/kubeconfig
DUR=6
PA=$(free_port) PB=$(free_port)

expect "lease duration checked" 2 "$BIN" serve --tls-cert-file x \
	--tls-private-key-file y --leader-elect-lease-duration 1s
has "lease duration checked" "3s or more"

# ---- A alone: it creates the Lease and audits ----
start cpulint-a "$PA"
A_PID=$!
until_metrics "A leads" "$PA" 'cpulint_audit_leader{identity="cpulint-a",lease="cpulint-system/kubectl-cpulint"} 1'
until_metrics "A audits" "$PA" 'owner="train-0",container="pytorch",rule="CPU401"'
check "A logged its Lease" grep -q "leader election on Lease cpulint-system/kubectl-cpulint as cpulint-a" "$tmp/cpulint-a.log"
check "the Lease is A's (kubectl)" [ "$(holder)" = cpulint-a ]
expect "the Lease's spec" 0 kubectl -n cpulint-system get lease kubectl-cpulint -o json
has "lease duration" '"leaseDurationSeconds": 6'
has "no transition yet" '"leaseTransitions": 0'

# ---- B joins: webhooks only, no audit series ----
start cpulint-b "$PB"
B_PID=$!
until_metrics "B follows" "$PB" 'cpulint_audit_leader{identity="cpulint-b",lease="cpulint-system/kubectl-cpulint"} 0'
all=$(metrics "$PB")
lacks "B exports no findings" "cpulint_findings{"
lacks "B exports no budgets" "cpulint_budget_cpus{"
lacks "B exports no audit state" "cpulint_audit_up"
has "B answers webhooks" 'cpulint_admission_reviews_total{result="allowed"}'
all=$(metrics "$PA")
has "A still audits" "cpulint_audit_up 1"

# ---- renewals, and optimistic concurrency with the real kubectl ----
kubectl -n cpulint-system get lease kubectl-cpulint -o json > "$tmp/stale.json"
r1=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["spec"]["renewTime"])' "$tmp/stale.json")
i=0
while [ $i -lt 60 ]; do
	r2=$(kubectl -n cpulint-system get lease kubectl-cpulint -o jsonpath='{.spec.renewTime}')
	[ "$r2" != "$r1" ] && break
	sleep 0.2
	i=$((i + 1))
done
check "A renews within duration/3 (+ slack)" [ "$r2" != "$r1" ]
check "still A's after renewing" [ "$(holder)" = cpulint-a ]
python3 - "$tmp/stale.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["spec"]["holderIdentity"] = "intruder"
json.dump(d, open(sys.argv[1], "w"))
PY
expect "a stale write is refused" 1 kubectl replace -f "$tmp/stale.json"
has "409 Conflict" "the object has been modified"
check "the intruder did not take it" [ "$(holder)" = cpulint-a ]

# ---- A killed: B takes over within the Lease's duration ----
# Timed by the Lease itself (wall-clock times the replicas wrote, one
# host), not by polling /metrics, which a loaded machine slows.
killed_at=$(date +%s.%N)
kill -KILL "$A_PID"
wait "$A_PID" 2>/dev/null
A_PID=
kubectl -n cpulint-system get lease kubectl-cpulint -o json > "$tmp/last-a.json"
until_metrics "B takes over" "$PB" 'cpulint_audit_leader{identity="cpulint-b",lease="cpulint-system/kubectl-cpulint"} 1' 20
kubectl -n cpulint-system get lease kubectl-cpulint -o json > "$tmp/taken.json"
times=$(python3 - "$tmp/last-a.json" "$tmp/taken.json" "$killed_at" <<'PY'
import calendar, json, sys, time
def t(s):
    day, frac = s.rstrip("Z").split(".")
    return calendar.timegm(time.strptime(day, "%Y-%m-%dT%H:%M:%S")) + \
        float("0." + frac)
a = json.load(open(sys.argv[1]))["spec"]
b = json.load(open(sys.argv[2]))["spec"]
assert a["holderIdentity"] == "cpulint-a", a
print("%.3f %.3f" % (t(b["acquireTime"]) - t(a["renewTime"]),
                     t(b["acquireTime"]) - float(sys.argv[3])))
PY
)
since_renew=${times% *} since_kill=${times#* }
# Never before the duration has passed since A's last renewal, and
# within it of the kill (that renewal came before it), up to 1 s of
# slack for a loaded machine.
check "not taken before the duration (${since_renew}s after A's last renewal)" [ "$(echo "$since_renew >= $DUR" | bc)" = 1 ]
check "hand-over within ${DUR}s of the kill (+1 s slack; took ${since_kill}s)" [ "$(echo "$since_kill <= $DUR + 1" | bc)" = 1 ]
until_metrics "B audits" "$PB" 'owner="train-0",container="pytorch",rule="CPU401"'
until_log "B said it took over" "$tmp/cpulint-b.log" "serve: holds the Lease cpulint-system/kubectl-cpulint: auditing"
check "the Lease is B's" [ "$(holder)" = cpulint-b ]
expect "one transition" 0 kubectl -n cpulint-system get lease kubectl-cpulint -o json
has "one transition" '"leaseTransitions": 1'

# ---- A back, B stopped: released, A takes over at once ----
start cpulint-a "$PA"
A_PID=$!
until_metrics "A back, following" "$PA" 'cpulint_audit_leader{identity="cpulint-a",lease="cpulint-system/kubectl-cpulint"} 0'
kill -TERM "$B_PID"
wait "$B_PID"
check "B stops on SIGTERM with 0" [ $? = 0 ]
B_PID=
until_metrics "A takes the released Lease" "$PA" 'cpulint_audit_leader{identity="cpulint-a",lease="cpulint-system/kubectl-cpulint"} 1' 10
check "released: taken over within a retry period (took ${took}s)" [ "$(echo "$took <= 4" | bc)" = 1 ]
check "the Lease is A's again" [ "$(holder)" = cpulint-a ]
kill -TERM "$A_PID"
wait "$A_PID"
check "A stops on SIGTERM with 0" [ $? = 0 ]
A_PID=
check "released on stop" [ -z "$(holder)" ]

# ---- RBAC without the Lease: no audit anywhere, the reason said once ----
apiserver_stop
apiserver_start --deny get:leases --deny get:nodes/proxy --timeout 60 || finish
trap cleanup EXIT
export KUBECONFIG=$APISERVER_DIR/kubeconfig
: > "$tmp/cpulint-c.log"
start cpulint-c "$PA"
C_PID=$!
A_PID=$C_PID	# cleanup stops it
until_metrics "no Lease, no leader" "$PA" 'cpulint_audit_leader{identity="cpulint-c",lease="cpulint-system/kubectl-cpulint"} 0'
sleep 3		# more than one retry period
all=$(metrics "$PA")
lacks "no Lease, no audit" "cpulint_audit_up"
all=$(cat "$tmp/cpulint-c.log")
has "the reason said" 'error: leader election: forbidden: cannot get leases.coordination.k8s.io "kubectl-cpulint" in namespace "cpulint-system"'
check "said once" [ "$(grep -c 'leader election' "$tmp/cpulint-c.log")" = 2 ]
kill -TERM "$C_PID"
wait "$C_PID"
check "C stops on SIGTERM with 0" [ $? = 0 ]
A_PID=
finish
