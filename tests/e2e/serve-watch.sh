#!/bin/sh
# serve's audit lists and then watches Pods: with --audit-interval 1h, only
# the watch can explain /metrics following a Pod the real kubectl creates,
# replaces and deletes.  Each change judges its owner once
# (cpulint_audit_judgements_total grows by the owners changed, not by all
# of them); an owner whose last Pod goes loses its series; a watch ended
# with 410 Gone (the fake API server's SIGUSR1) lists again and judges
# nothing that did not change; a connection broken off (SIGUSR2) lists
# again after the backoff; an event larger than the watch's line buffer
# ends that watch, not the audit.  The real `kubectl get pods --watch`
# runs against the same fake server.  Waits are bounded polls, never
# timed assertions.
set -u
BIN=${BIN:?}
SUITE=serve-watch
. tests/lib.sh
. tests/live/apiserver.sh
SERVE_PID= KW_PID=
cleanup() {
	[ -z "$SERVE_PID" ] || { kill "$SERVE_PID" 2>/dev/null; wait "$SERVE_PID" 2>/dev/null; }
	[ -z "$KW_PID" ] || { kill "$KW_PID" 2>/dev/null; wait "$KW_PID" 2>/dev/null; }
	apiserver_stop
	rm -rf "$tmp"
}
trap cleanup EXIT
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
scrape() {
	curl -s --max-time 10 --cacert "$tmp/c/ca.crt" "https://127.0.0.1:$PORT/metrics"
}
# value SERIES: the sample of a series without labels.
value() {
	scrape | awk -v s="$1" '$1 == s { print $2 }'
}
# until_metric NAME SERIES WANT: polls (at most 60 s) until SERIES is WANT.
until_metric() {
	i=0
	while [ $i -lt 240 ]; do
		got=$(value "$2")
		[ "$got" = "$3" ] && { ok; return 0; }
		sleep 0.25
		i=$((i + 1))
	done
	bad "$1: after 60 s, $2 is '$got', expected $3"
	return 1
}
# until_text NAME +TEXT|-TEXT: polls until /metrics has or lacks TEXT.
until_text() {
	i=0
	while [ $i -lt 240 ]; do
		res=$(scrape)
		case $2 in
		+*) printf '%s\n' "$res" | grep -qF -- "${2#+}" && { ok; return 0; } ;;
		-*) printf '%s\n' "$res" | grep -qF -- "${2#-}" || { ok; return 0; } ;;
		esac
		sleep 0.25
		i=$((i + 1))
	done
	bad "$1: after 60 s, /metrics does not match $2"
	return 1
}
# until_file NAME FILE TEXT: polls until FILE has a line matching TEXT (ERE).
until_file() {
	i=0
	while [ $i -lt 240 ]; do
		grep -qE -- "$3" "$2" 2>/dev/null && { ok; return 0; }
		sleep 0.25
		i=$((i + 1))
	done
	bad "$1: after 60 s, $2 lacks $3"
	sed -n 1,10p "$2"
	return 1
}

CPL_CERT_SANS="IP:127.0.0.1" sh deploy/make-cert.sh "$tmp/c" >/dev/null ||
	bad "make-cert.sh failed"
apiserver_start --deny get:nodes/proxy --bookmark-every 1 --timeout 280 ||
	finish
trap cleanup EXIT	# apiserver_start set its own EXIT trap
export KUBECONFIG=$APISERVER_DIR/kubeconfig
LOG=$APISERVER_DIR/requests.jsonl
PORT=$(free_port)
"$BIN" serve --listen "127.0.0.1:$PORT" --tls-cert-file "$tmp/c/tls.crt" \
	--tls-private-key-file "$tmp/c/tls.key" --audit-interval 1h \
	--kubeconfig "$KUBECONFIG" 2>"$tmp/serve.log" &
SERVE_PID=$!

# The first list: every owner judged once.
until_metric "first list" cpulint_audit_passes_total 1
owners=$(value cpulint_audit_owners)
check "owners listed" [ "${owners:-0}" -ge 3 ]
until_metric "each owner judged once" cpulint_audit_judgements_total "$owners"
J=$owners
until_file "the audit watches from the list's resourceVersion" "$LOG" \
	'"path": "/api/v1/pods", "query": "watch=1&resourceVersion=[0-9]+&allowWatchBookmarks=true&timeoutSeconds=[0-9]+"'

# The real kubectl watches the same server.
kubectl get pods -n ml --watch --output-watch-events >"$tmp/kw.out" 2>&1 &
KW_PID=$!
until_file "kubectl get --watch lists" "$tmp/kw.out" 'train-0'

# Created: judged at once (no audit interval passes), one judgement.
expect "kubectl create hog" 0 kubectl create -f testdata/serve/hog-pod.yaml
until_text "hog's findings" \
	'+cpulint_findings{namespace="ml",owner_kind="pod",owner="hog",container="a",rule="CPU401",severity="error"} 1'
until_metric "one owner judged for hog" cpulint_audit_judgements_total $((J + 1))
until_metric "hog's row" cpulint_audit_owners $((owners + 1))
until_file "kubectl --watch sees hog added" "$tmp/kw.out" '^ADDED +hog'

# Replaced with a fixed spec: its errors go, one judgement.
expect "kubectl replace hog" 0 kubectl replace -f testdata/serve/hog-pod-fixed.yaml
until_text "hog's errors gone" '-owner="hog",container="a",rule="CPU401"'
until_metric "one owner judged for the fix" cpulint_audit_judgements_total $((J + 2))
until_file "kubectl --watch sees hog modified" "$tmp/kw.out" '^MODIFIED +hog'

# Deleted: every series goes; nothing is judged.
expect "kubectl delete hog" 0 kubectl delete pod hog --wait=false
until_text "hog gone" '-owner="hog"'
until_metric "hog's row gone" cpulint_audit_owners "$owners"
check "nothing judged for a deletion" [ "$(value cpulint_audit_judgements_total)" = $((J + 2)) ]
until_file "kubectl --watch sees hog deleted" "$tmp/kw.out" '^DELETED +hog'
kill "$KW_PID" 2>/dev/null
wait "$KW_PID" 2>/dev/null
KW_PID=
J=$((J + 2))

# Two Pods of one Job: one row; each change judges that owner once.
expect "create etl-a" 0 kubectl create -f testdata/serve/etl-pod-a.yaml
until_metric "etl-a judged" cpulint_audit_judgements_total $((J + 1))
expect "create etl-b" 0 kubectl create -f testdata/serve/etl-pod-b.yaml
until_metric "etl judged again for etl-b" cpulint_audit_judgements_total $((J + 2))
until_text "etl counts two Pods" '+cpulint_findings{namespace="ml",owner_kind="job",owner="etl",container="train",rule="CPU401",severity="error"} 1'
check "one row for the Job" [ "$(value cpulint_audit_owners)" = $((owners + 1)) ]
expect "delete etl-a" 0 kubectl delete pod etl-a --wait=false
until_metric "etl judged again without etl-a" cpulint_audit_judgements_total $((J + 3))
# One Pod left: live mode names the group after it, as `kubectl cpulint -A`.
until_text "etl-b's series" '+owner_kind="pod",owner="etl-b",container="train",rule="CPU401"'
n=$(scrape | grep -c 'owner="etl"')
check "etl's two-Pod series gone" [ "$n" = 0 ]
expect "delete etl-b" 0 kubectl delete pod etl-b --wait=false
until_text "etl's series gone with its last Pod" '-owner="etl-b"'
until_metric "etl's row gone" cpulint_audit_owners "$owners"
J=$((J + 3))
check "no judgement for the last deletion" [ "$(value cpulint_audit_judgements_total)" = "$J" ]

# 410 Gone: listed again; nothing changed, so nothing is judged.
kill -USR1 "$APISERVER_PID"
until_metric "relisted after 410" cpulint_audit_relists_total 1
until_metric "second list" cpulint_audit_passes_total 2
check "nothing judged by the relist" [ "$(value cpulint_audit_judgements_total)" = "$J" ]
expect "create hog after the 410" 0 kubectl create -f testdata/serve/hog-pod.yaml
until_text "the watch resumed" '+owner="hog"'
until_metric "hog judged once" cpulint_audit_judgements_total $((J + 1))
J=$((J + 1))

# The connection broken off: a failure, then a list after the backoff.
kill -USR2 "$APISERVER_PID"
until_metric "a broken watch is a failure" cpulint_audit_failures_total 1
until_metric "listed again after the backoff" cpulint_audit_passes_total 3
until_metric "up again" cpulint_audit_up 1
check "nothing judged by that list" [ "$(value cpulint_audit_judgements_total)" = "$J" ]
expect "delete hog after the break" 0 kubectl delete pod hog --wait=false
until_text "the watch resumed again" '-owner="hog"'

# An event past the line buffer (a Pod of 5 MiB, posted as curl would):
# that watch ends with a failure, the list reads the Pod, serve goes on.
python3 - "$tmp/big.json" <<'PY'
import json, sys
pod = {"apiVersion": "v1", "kind": "Pod",
       "metadata": {"name": "big", "namespace": "ml",
                    "annotations": {"x": "y" * (5 << 20)}},
       "spec": {"containers": [{"name": "a", "image": "busybox",
                                "resources": {"limits": {"cpu": "1"}}}]}}
json.dump(pod, open(sys.argv[1], "w"))
PY
curl -s -o /dev/null -w '%{http_code}' --cacert "$APISERVER_DIR/ca.crt" \
	-H "Authorization: Bearer $(cat "$APISERVER_DIR/token")" \
	-H 'Content-Type: application/json' --data-binary @"$tmp/big.json" \
	"https://127.0.0.1:$APISERVER_PORT/api/v1/namespaces/ml/pods" >"$tmp/post.code"
check "the big Pod is stored" [ "$(cat "$tmp/post.code")" = 201 ]
until_metric "the big event fails that watch" cpulint_audit_failures_total 2
until_metric "the list after it" cpulint_audit_passes_total 4
until_metric "the big Pod's row, from the list" cpulint_audit_owners $((owners + 1))
until_metric "up after the big Pod" cpulint_audit_up 1

# No credential in anything serve said.
token=$(cat "$APISERVER_DIR/token")
check "no token on serve's stderr" sh -c "! grep -qF -- '$token' '$tmp/serve.log'"

kill -TERM "$SERVE_PID"
wait "$SERVE_PID"
check "serve stops on SIGTERM with 0, a watch under way" [ $? = 0 ]
SERVE_PID=

# RBAC without watch: the list of each interval alone, and up.
apiserver_stop
apiserver_start --deny get:nodes/proxy --deny watch:pods --timeout 120 ||
	finish
trap cleanup EXIT
export KUBECONFIG=$APISERVER_DIR/kubeconfig
"$BIN" serve --listen "127.0.0.1:$PORT" --tls-cert-file "$tmp/c/tls.crt" \
	--tls-private-key-file "$tmp/c/tls.key" --audit-interval 1h \
	--kubeconfig "$KUBECONFIG" 2>"$tmp/serve.log" &
SERVE_PID=$!
until_metric "watch refused: counted" cpulint_audit_failures_total 1
until_metric "watch refused: the list stands" cpulint_audit_up 1
check "watch refused: owners from the list" [ "$(value cpulint_audit_owners)" = "$owners" ]
check "watch refused: one list" [ "$(value cpulint_audit_passes_total)" = 1 ]
check "the refused watch was asked once" [ "$(grep -c '"query": "watch=1' "$APISERVER_DIR/requests.jsonl")" = 1 ]
kill -TERM "$SERVE_PID"
wait "$SERVE_PID"
check "serve stops on SIGTERM with 0, between lists" [ $? = 0 ]
SERVE_PID=
finish
