#!/bin/sh
# docs/serve.md's install steps, followed as written: the two fenced
# blocks after the markers <!-- install: ... --> (cert-manager, the
# default) and <!-- install-no-cert-manager: ... --> are taken from the
# doc and run by sh -e, each in a copy of the repository's deploy/ and
# against a fresh fake API server with the real kubectl, without an
# edit.  Then what they made is read back: the Deployment's two replicas
# with --leader-elect, the PDB, the Lease Role, the Issuer and
# Certificate, the webhook with the cainjector annotation (or, without
# cert-manager, the Secret and a caBundle that is the CA made and no
# annotation), the namespace opted in, the dashboard's ConfigMap.
set -u
BIN=${BIN:?}
SUITE=serve-install
. tests/lib.sh
. tests/live/apiserver.sh
REPO=$(pwd)
cleanup() {
	apiserver_stop
	rm -rf "$tmp"
}
trap cleanup EXIT

# block MARKER: the fenced block after the line that starts with
# "<!-- MARKER:" in docs/serve.md.
block() {
	awk -v m="<!-- $1:" '
		index($0, m) == 1 { found = 1; next }
		found && /^```/ { if (inside) exit; inside = 1; next }
		inside { print }
	' docs/serve.md
}
# run_block MARKER: runs it in a fresh directory holding deploy/.
run_block() {
	rm -rf "$tmp/work"
	mkdir -p "$tmp/work"
	cp -R "$REPO/deploy" "$tmp/work/deploy"
	block "$1" > "$tmp/$1.sh"
	check "$1: the doc has the block" [ -s "$tmp/$1.sh" ]
	(cd "$tmp/work" && sh -e "$tmp/$1.sh") > "$tmp/$1.out" 2>&1
	rc=$?
	check "$1: runs as written (exit $rc)" [ $rc = 0 ]
	[ $rc = 0 ] || tail -5 "$tmp/$1.out"
}
k() { kubectl "$@" 2>&1; }

# ---- with cert-manager (the default) ----
apiserver_start --timeout 120 || finish
trap cleanup EXIT	# apiserver_start set its own EXIT trap
export KUBECONFIG=$APISERVER_DIR/kubeconfig
run_block install
all=$(k -n cpulint-system get deployment kubectl-cpulint -o json)
has "two replicas" '"replicas": 2'
has "leader election on" '"--leader-elect"'
has "identity from the downward API" '"fieldPath": "metadata.name"'
has "spread over nodes" '"topologyKey": "kubernetes.io/hostname"'
has "the release's image" "\"image\": \"kubectl-cpulint:$(cat "$REPO/VERSION")\""
all=$(k -n cpulint-system get pdb kubectl-cpulint -o jsonpath='{.spec.minAvailable}')
check "PDB keeps one" [ "$all" = 1 ]
all=$(k -n cpulint-system get role kubectl-cpulint-lease -o json)
has "Lease RBAC" '"leases"'
has "Lease RBAC verbs" '"update"'
all=$(k -n cpulint-system get rolebinding kubectl-cpulint-lease -o jsonpath='{.subjects[0].name}')
check "Lease RBAC bound" [ "$all" = kubectl-cpulint ]
all=$(k -n cpulint-system get certificate kubectl-cpulint -o jsonpath='{.spec.secretName} {.spec.issuerRef.name}')
check "Certificate into the mounted Secret" [ "$all" = "kubectl-cpulint-tls kubectl-cpulint-selfsigned" ]
all=$(k -n cpulint-system get issuer kubectl-cpulint-selfsigned -o json)
has "self-signed Issuer" '"selfSigned"'
all=$(k get validatingwebhookconfiguration kubectl-cpulint -o json)
has "cainjector annotation" '"cert-manager.io/inject-ca-from": "cpulint-system/kubectl-cpulint"'
all=$(k get namespace ml -o jsonpath='{.metadata.labels}')
has "namespace opted in" '"cpulint.io/webhook":"enabled"'
all=$(k -n cpulint-system get configmap kubectl-cpulint-dashboard -o json)
has "dashboard ConfigMap" '"grafana_dashboard": "1"'
has "dashboard in it" 'kubectl-cpulint.json'
all=$(k -n cpulint-system get prometheusrule kubectl-cpulint -o json)
has "PrometheusRule" "CpulintTrainingThrottled"
all=$(k -n cpulint-system get servicemonitor kubectl-cpulint -o jsonpath='{.spec.endpoints[0].tlsConfig.ca.secret.name}')
check "ServiceMonitor trusts the Secret's CA" [ "$all" = kubectl-cpulint-tls ]
apiserver_stop

# ---- without cert-manager ----
apiserver_start --timeout 120 || finish
trap cleanup EXIT
export KUBECONFIG=$APISERVER_DIR/kubeconfig
run_block install-no-cert-manager
all=$(k -n cpulint-system get secret kubectl-cpulint-tls -o jsonpath='{.type}')
check "the Secret" [ "$all" = kubernetes.io/tls ]
ca=$(k get validatingwebhookconfiguration kubectl-cpulint -o jsonpath='{.webhooks[0].clientConfig.caBundle}')
check "caBundle is the CA made" [ "$ca" = "$(base64 -w0 < "$tmp/work/cpulint-certs/ca.crt")" ]
all=$(k get validatingwebhookconfiguration kubectl-cpulint -o json)
lacks "no cainjector annotation" "inject-ca-from"
all=$(k -n cpulint-system get deployment kubectl-cpulint -o jsonpath='{.spec.replicas}')
check "two replicas" [ "$all" = 2 ]
all=$(k get namespace ml -o jsonpath='{.metadata.labels}')
has "namespace opted in" '"cpulint.io/webhook":"enabled"'
finish
