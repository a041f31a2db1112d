# apiserver.sh — start and stop the fake API server from a shell test.
#
# Source it from the repository root, then:
#
#   apiserver_start [server.py options...]   e.g. --generate-pods 1200
#   ... use $APISERVER_DIR/kubeconfig (contexts fake-token, fake-cert,
#       fake-wrong-ca, fake-tls-name, fake-bad-token), kubeconfig-token,
#       kubeconfig-cert, $APISERVER_PORT, $APISERVER_DIR/requests.jsonl
#   apiserver_stop
#
# apiserver_start makes a fresh directory, starts
# testdata/apiserver/server.py there (loopback only; it exits by itself
# after --timeout, 300 s unless given) and waits up to 30 s for its port
# file.  apiserver_stop sends SIGTERM to that server only and removes the
# directory; an EXIT trap calls it too.  Returns non-zero, with a message
# on stderr, when the server does not come up.

APISERVER_DIR=
APISERVER_PORT=
APISERVER_PID=

apiserver_stop() {
	if [ -n "$APISERVER_PID" ]; then
		kill "$APISERVER_PID" 2>/dev/null
		i=0
		while kill -0 "$APISERVER_PID" 2>/dev/null && [ $i -lt 50 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		kill -9 "$APISERVER_PID" 2>/dev/null
		wait "$APISERVER_PID" 2>/dev/null
		APISERVER_PID=
	fi
	if [ -n "$APISERVER_DIR" ] && [ -d "$APISERVER_DIR" ]; then
		rm -rf "$APISERVER_DIR"
	fi
	APISERVER_DIR=
}

apiserver_start() {
	APISERVER_DIR=$(mktemp -d "${TMPDIR:-/tmp}/cpl-apiserver-XXXXXX") ||
		return 1
	trap apiserver_stop EXIT
	python3 testdata/apiserver/server.py --dir "$APISERVER_DIR" "$@" \
		>"$APISERVER_DIR/server.log" 2>&1 &
	APISERVER_PID=$!
	i=0
	while [ ! -s "$APISERVER_DIR/port" ]; do
		if ! kill -0 "$APISERVER_PID" 2>/dev/null; then
			echo "apiserver: the server exited at start:" >&2
			cat "$APISERVER_DIR/server.log" >&2
			APISERVER_PID=
			return 1
		fi
		if [ $i -ge 300 ]; then
			echo "apiserver: no port file after 30 s" >&2
			return 1
		fi
		sleep 0.1
		i=$((i + 1))
	done
	APISERVER_PORT=$(cat "$APISERVER_DIR/port")
	export APISERVER_DIR APISERVER_PORT
}
