#!/bin/sh
# Makes the serving certificate of kubectl-cpulint serve with openssl: a
# CA of its own and a server certificate for the Service's DNS names
# (SERVICE.NAMESPACE.svc and .svc.cluster.local), valid DAYS days.  The
# alternative to deploy/cert-manager.yaml for a cluster without
# cert-manager (docs/serve.md, "Without cert-manager"); renewing is then
# running it again and replacing the Secret and the caBundle.
#
#   sh deploy/make-cert.sh [DIR] [NAMESPACE] [SERVICE] [DAYS]
#
# Writes DIR/ca.crt, DIR/ca.key, DIR/tls.crt, DIR/tls.key (defaults:
# ./cpulint-certs cpulint-system kubectl-cpulint 365) and prints the two
# commands that put them in the cluster: the Secret the Deployment mounts,
# and the caBundle of the ValidatingWebhookConfiguration.  Extra names
# for the certificate (tests: 127.0.0.1) may be given in CPL_CERT_SANS,
# e.g. "IP:127.0.0.1,DNS:localhost".
set -eu
dir=${1:-./cpulint-certs}
ns=${2:-cpulint-system}
svc=${3:-kubectl-cpulint}
days=${4:-365}
mkdir -p "$dir"
umask 077
san="DNS:$svc.$ns.svc,DNS:$svc.$ns.svc.cluster.local"
[ -z "${CPL_CERT_SANS:-}" ] || san="$san,$CPL_CERT_SANS"
openssl req -x509 -newkey rsa:2048 -nodes -sha256 -days "$days" \
	-subj "/CN=kubectl-cpulint webhook CA" \
	-addext "basicConstraints=critical,CA:TRUE" \
	-addext "keyUsage=critical,keyCertSign,cRLSign" \
	-keyout "$dir/ca.key" -out "$dir/ca.crt" 2>/dev/null
openssl req -newkey rsa:2048 -nodes -sha256 -subj "/CN=$svc.$ns.svc" \
	-keyout "$dir/tls.key" -out "$dir/tls.csr" 2>/dev/null
ext="$dir/tls.ext"
printf 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\nsubjectAltName=%s\n' \
	"$san" > "$ext"
openssl x509 -req -in "$dir/tls.csr" -CA "$dir/ca.crt" -CAkey "$dir/ca.key" \
	-CAcreateserial -days "$days" -sha256 -extfile "$ext" \
	-out "$dir/tls.crt" 2>/dev/null
rm -f "$dir/tls.csr" "$ext" "$dir/ca.srl"
chmod 0644 "$dir/ca.crt" "$dir/tls.crt"
echo "made $dir/tls.crt for $svc.$ns.svc (CA: $dir/ca.crt)"
echo "kubectl -n $ns create secret tls kubectl-cpulint-tls --cert=$dir/tls.crt --key=$dir/tls.key"
echo "caBundle (deploy/webhook.yaml): base64 -w0 < $dir/ca.crt"
