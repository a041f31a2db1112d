#!/bin/bash
# The logic of the GitHub Action (action.yml at the repository's root):
# downloads the release tarball for the runner's OS and architecture,
# checks its sha256, lints the whole tree into a SARIF file (for code
# scanning, which takes each upload as the full state), and, on a pull
# request, lints again with --diff-base (the pull request's base) as
# `-o github` workflow commands: annotations, which a pull request from a
# fork gets too, although it may not upload SARIF.  It does not fail on
# findings itself: it writes outputs (GITHUB_OUTPUT) that the action's
# next steps read (upload the SARIF, then fail the step), so the SARIF is
# uploaded whatever the verdict.  It fails (exit 1, one ::error line) only
# when it cannot run: no tarball for this runner, a wrong sha256, a base
# commit it cannot find.
#
# Inputs come from the environment (action.yml maps each input to one):
#   CPULINT_VERSION      release tag, vMAJOR.MINOR.PATCH (default: the
#                        action's own, v + its VERSION file: a workflow
#                        that pins the action by commit SHA has no tag)
#   CPULINT_PATHS        what to lint, one path a line (default .)
#   CPULINT_ARGS         more flags for every run, split at blanks
#   CPULINT_FAIL_ON      --fail-on for the gate (default error)
#   CPULINT_GATE         new: pull requests fail on new findings (default);
#                        all: every event fails on any finding; none: never
#   CPULINT_DIFF_BASE    the base to compare with (default: the pull
#                        request's base commit, from GITHUB_EVENT_PATH)
#   CPULINT_UPLOAD       true (default) or false: upload the SARIF
#   CPULINT_SHA256       expected sha256s, one per platform:
#                        "linux-amd64=HEX linux-arm64=HEX" (a bare HEX is
#                        for every platform); default: the checksums the
#                        action ships for its own version
#                        (action/SHA256SUMS), so an action pinned by SHA
#                        verifies what it downloads whatever the release
#                        holds; for another version, the release's
#                        SHA256SUMS (with a warning)
#   CPULINT_RELEASE_URL  where the tarballs are (default: the project's
#                        GitHub release of CPULINT_VERSION; a file:// URL
#                        or a local folder works too)
#   CPULINT_TOKEN        the job's token, only to ask whether code
#                        scanning is on in a private repository
# and GitHub's own: GITHUB_API_URL, GITHUB_WORKSPACE, GITHUB_EVENT_NAME, GITHUB_EVENT_PATH,
# GITHUB_REPOSITORY, GITHUB_ACTOR, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY,
# GITHUB_PATH, RUNNER_OS, RUNNER_ARCH, RUNNER_TEMP.
#
# Outputs: sarif-file, findings (whole tree), new-findings (annotated by
# the gate run), upload (true/false), exit-code (0 passed, 1 findings at
# or above fail-on, 2 a file or flag the tool could not use).
set -uo pipefail

repo_url=https://github.com/kubectl-cpulint/kubectl-cpulint

die() {
	echo "::error title=kubectl-cpulint::$*"
	exit 1
}
# output NAME VALUE: one step output (VALUE has no newline)
output() {
	[ -z "${GITHUB_OUTPUT:-}" ] || printf '%s=%s\n' "$1" "$2" >> "$GITHUB_OUTPUT"
}
summary() {
	[ -z "${GITHUB_STEP_SUMMARY:-}" ] || printf '%s\n' "$@" >> "$GITHUB_STEP_SUMMARY"
}
# event FILTER: a string from the event's JSON (jq, else python3), empty
# when absent or null
event() {
	[ -n "${GITHUB_EVENT_PATH:-}" ] && [ -f "$GITHUB_EVENT_PATH" ] || return 0
	if command -v jq >/dev/null 2>&1; then
		jq -r "($1) // empty" "$GITHUB_EVENT_PATH"
	else
		python3 - "$GITHUB_EVENT_PATH" "$1" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2].lstrip(".").split("."):
    v = v.get(k) if isinstance(v, dict) else None
print("" if v is None else v)
PY
	fi
}
# fetch URL-OR-PATH FILE
fetch() {
	case $1 in
	*://*) curl -fsSL --retry 3 --proto '=https,file' -o "$2" "$1" ;;
	*) cp "$1" "$2" ;;
	esac
}

# shown VALUE: an input as it may be shown in a message (anything but
# letters, digits and . _ / - as '?': no newline, no workflow command)
shown() {
	local v=${1:0:80}
	printf '%s' "${v//[^A-Za-z0-9._\/-]/?}"
}

# 1. the release for this runner: the action's own version unless told
action_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
own=v$(tr -d ' \n' < "$action_dir/VERSION" 2>/dev/null)
version=${CPULINT_VERSION:-$own}
[[ $version =~ ^v[0-9]+\.[0-9]+\.[0-9]+$ ]] ||
	die "version '$(shown "$version")' is not a release tag (vMAJOR.MINOR.PATCH): set the action's version input ($repo_url/releases)"
case ${RUNNER_OS:-} in
Linux) ;;
*) die "the release runs on Linux runners only, not ${RUNNER_OS:-an unknown OS}" ;;
esac
case ${RUNNER_ARCH:-} in
X64) arch=amd64 ;;
ARM64) arch=arm64 ;;
*) die "no release for the ${RUNNER_ARCH:-unknown} architecture (X64 and ARM64 have one)" ;;
esac
tarball=kubectl-cpulint-$version-linux-$arch.tar.gz
base_url=${CPULINT_RELEASE_URL:-$repo_url/releases/download/$version}
tmp=${RUNNER_TEMP:-${TMPDIR:-/tmp}}/kubectl-cpulint
rm -rf "$tmp" && mkdir -p "$tmp/bin" || die "cannot make $tmp"
fetch "$base_url/$tarball" "$tmp/$tarball" ||
	die "cannot download $tarball from $base_url"
# The expected sum: the sha256 input (per platform), else the sums the
# action ships, else (another version) the release's own list.
want="" platform=linux-$arch
for w in ${CPULINT_SHA256:-}; do
	case $w in
	*=*) [ "${w%%=*}" = "$platform" ] && want=${w#*=} ;;
	*) [ -n "$want" ] || want=$w ;;
	esac
	[[ ${w#*=} =~ ^[0-9a-fA-F]{64}$ ]] ||
		die "the sha256 input holds '$(shown "$w")': give PLATFORM=SHA256 pairs (linux-amd64=..., linux-arm64=...) of 64 hex digits"
done
if [ -n "${CPULINT_SHA256:-}" ] && [ -z "$want" ]; then
	die "the sha256 input has no value for $platform"
elif [ -z "$want" ] && [ -f "$action_dir/action/SHA256SUMS" ]; then
	want=$(awk -v f="$tarball" '$2 == f || $2 == "*" f { print $1 }' \
		"$action_dir/action/SHA256SUMS")
	[ -n "$want" ] && echo "checking $tarball against the sha256 this action ships"
fi
if [ -z "$want" ]; then
	[ "$version" != "$own" ] ||
		die "this action ships no sha256 for $tarball (action/SHA256SUMS): use it at a release tag, or give the sha256 input"
	fetch "$base_url/SHA256SUMS" "$tmp/SHA256SUMS" ||
		die "cannot download SHA256SUMS from $base_url (or give the sha256 input)"
	want=$(awk -v f="$tarball" '$2 == f || $2 == "*" f { print $1 }' \
		"$tmp/SHA256SUMS")
	[ -n "$want" ] || die "SHA256SUMS of $version does not name $tarball"
	echo "::warning title=kubectl-cpulint::$version is not the action's own version ($own): $tarball is checked against the release's own SHA256SUMS only; pin it with the sha256 input"
fi
want=$(printf '%s' "$want" | tr 'A-F' 'a-f')
got=$(sha256sum "$tmp/$tarball" | cut -d' ' -f1)
[ "$got" = "$want" ] ||
	die "$tarball: sha256 $got, expected $want; not running it"
tar -C "$tmp/bin" -xzf "$tmp/$tarball" kubectl-cpulint kubectl_complete-cpulint ||
	die "$tarball does not unpack"
echo "kubectl-cpulint $version (linux-$arch), sha256 $got"
[ -z "${GITHUB_PATH:-}" ] || echo "$tmp/bin" >> "$GITHUB_PATH"
cpulint=$tmp/bin/kubectl-cpulint

# 2. what to lint, and how
cd "${GITHUB_WORKSPACE:-.}" || die "no workspace ${GITHUB_WORKSPACE:-}"
paths=()
while IFS= read -r p; do
	[ -n "$p" ] && paths+=("$p")
done <<< "${CPULINT_PATHS:-.}"
[ ${#paths[@]} -gt 0 ] || paths=(.)
read -r -a args <<< "${CPULINT_ARGS:-}"
fail_on=${CPULINT_FAIL_ON:-error}
gate=${CPULINT_GATE:-new}
case $gate in new | all | none) ;;
*) die "gate must be new, all or none, not '$(shown "$gate")'" ;;
esac
case $fail_on in error | warning | note | none) ;;
*) die "fail-on must be error, warning, note or none, not '$(shown "$fail_on")'" ;;
esac
event_name=${GITHUB_EVENT_NAME:-}
pr=""
case $event_name in pull_request | pull_request_target) pr=y ;; esac
base=${CPULINT_DIFF_BASE:-}
# A ref or a commit, never an option: git would run --upload-pack=CMD.
if [ -n "$base" ]; then
	if [[ $base == -* ]] || ! { [[ $base =~ ^[0-9a-fA-F]{7,64}$ ]] ||
		git check-ref-format --allow-onelevel "$base" 2>/dev/null; }; then
		die "diff-base '$(shown "$base")' is not a branch, tag or commit name"
	fi
fi
if [ -z "$base" ] && [ -n "$pr" ]; then
	base=$(event .pull_request.base.sha)
	[[ $base =~ ^[0-9a-f]{40}$ ]] ||
		die "the pull_request event names no base commit"
fi

# Code scanning takes uploads from this repository's own branches: a pull
# request from a fork (or Dependabot's) has a read-only token.
upload=${CPULINT_UPLOAD:-true}
why_not=""
if [ "$upload" != true ]; then
	upload=false why_not="the upload-sarif input is false"
elif [ -n "$pr" ]; then
	head_repo=$(event .pull_request.head.repo.full_name)
	base_repo=$(event .pull_request.base.repo.full_name)
	[ -n "$base_repo" ] || base_repo=${GITHUB_REPOSITORY:-}
	if [ "$head_repo" != "$base_repo" ]; then
		upload=false
		why_not="a pull request from a fork cannot upload to code scanning; its findings are annotations"
	elif [ "${GITHUB_ACTOR:-}" = "dependabot[bot]" ]; then
		upload=false
		why_not="Dependabot's pull requests cannot upload to code scanning"
	fi
fi
# A private repository without code scanning (GitHub Advanced Security or
# Code Security off) refuses the upload, which would fail the job: ask
# first.  Any other answer (or none) tries the upload.
if [ "$upload" = true ] &&
   [[ $(event .repository.private) == [Tt]rue ]] &&
   [[ ${GITHUB_REPOSITORY:-} =~ ^[A-Za-z0-9._-]+/[A-Za-z0-9._-]+$ ]]; then
	api=${GITHUB_API_URL:-https://api.github.com}
	code=$(curl -s -o "$tmp/cs.json" -w '%{http_code}' --max-time 15 \
		--proto '=https,http' -H "Accept: application/vnd.github+json" \
		${CPULINT_TOKEN:+-H "Authorization: Bearer $CPULINT_TOKEN"} \
		"$api/repos/$GITHUB_REPOSITORY/code-scanning/analyses?per_page=1" \
		2>/dev/null)
	if [ "$code" = 403 ] &&
	   grep -qiE 'advanced security|code scanning is not enabled|code security' "$tmp/cs.json"; then
		upload=false
		why_not="code scanning is not enabled in this private repository (it needs GitHub Advanced Security or Code Security); the findings are in the annotations and below"
		echo "::notice title=kubectl-cpulint::$why_not: the SARIF upload is skipped"
	fi
	rm -f "$tmp/cs.json"
fi

# The base must be a commit here, with a merge base: fetch what a shallow
# checkout lacks.
if [ -n "$base" ] && [ "$gate" != all ]; then
	if ! git cat-file -e "$base^{commit}" 2>/dev/null; then
		echo "fetching the base commit $base"
		git fetch -q --no-tags origin --end-of-options "$base" ||
			die "cannot fetch the base commit $base"
	fi
	if ! git merge-base HEAD "$base" >/dev/null 2>&1 &&
	   [ "$(git rev-parse --is-shallow-repository)" = true ]; then
		echo "shallow checkout: fetching the history for --diff-base" \
		     "(actions/checkout with fetch-depth: 0 saves this)"
		git fetch -q --no-tags --unshallow origin ||
			die "cannot fetch the history of the base $base"
	fi
	git merge-base HEAD "$base" >/dev/null 2>&1 ||
		die "HEAD and the base $base have no merge base"
fi

# 3. the whole tree, as SARIF (for code scanning, whatever the gate)
sarif=$tmp/cpulint.sarif
"$cpulint" -o sarif --output-file "$sarif" --fail-on none \
	"${args[@]}" "${paths[@]}"
tree_rc=$?
[ -s "$sarif" ] || die "kubectl-cpulint wrote no SARIF (exit $tree_rc)"
count() {	# SARIF LEVEL...: results in SARIF at those levels
	local f=$1
	shift
	if command -v jq >/dev/null 2>&1; then
		jq --arg l "$*" '[.runs[].results[] | select(.level as $x |
			$l | split(" ") | index($x))] | length' "$f"
	else
		python3 - "$f" "$@" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(sum(r.get("level", "warning") in sys.argv[2:]
          for run in d["runs"] for r in run["results"]))
PY
	fi
}
errors=$(count "$sarif" error) warnings=$(count "$sarif" warning)
notes=$(count "$sarif" note)
findings=$((errors + warnings + notes))

# 4. the gate: what is new since the base (or, gate all, everything) at
# or above fail-on decides; then the same findings as annotations
gate_rc=0 new=0
if [ "$gate" = all ] || [ -n "$base" ]; then
	diff=()
	[ "$gate" = all ] || diff=(--diff-base "$base")
	"$cpulint" -o sarif --output-file "$tmp/new.sarif" --fail-on "$fail_on" \
		"${diff[@]}" "${args[@]}" "${paths[@]}"
	gate_rc=$?
	if [ -s "$tmp/new.sarif" ]; then
		new=$(count "$tmp/new.sarif" error warning note)
	fi
	"$cpulint" -o github --fail-on none "${diff[@]}" "${args[@]}" \
		"${paths[@]}"
	# The job summary lists them (a fork's pull request sees at most 10
	# annotations of each level), each linked to its file at the commit.
	[ -z "${GITHUB_STEP_SUMMARY:-}" ] ||
		"$cpulint" -o markdown --output-file "$tmp/new.md" \
			--fail-on none "${diff[@]}" "${args[@]}" "${paths[@]}" \
			2>/dev/null
fi
rc=$gate_rc
[ "$tree_rc" != 2 ] || rc=2
[ "$gate" != none ] || [ "$rc" = 2 ] || rc=0

output sarif-file "$sarif"
output findings "$findings"
output new-findings "$new"
output upload "$upload"
output exit-code "$rc"

summary "### kubectl-cpulint $version" "" \
	"| | findings |" "| --- | --- |" \
	"| whole tree | $findings ($errors error, $warnings warning, $notes note) |"
if [ -n "$base" ] && [ "$gate" != all ]; then
	summary "| new since ${base:0:12} | $new |"
elif [ "$gate" = all ]; then
	summary "| annotated (gate: all) | $new |"
fi
summary ""
if [ "$upload" = true ]; then
	summary "The whole tree's SARIF goes to code scanning."
else
	summary "No upload to code scanning: $why_not."
fi
if [ -s "$tmp/new.md" ]; then
	if [ "$gate" = all ]; then summary "" "#### Every finding"
	else summary "" "#### New since the base"; fi
	summary ""
	sed 's/^###/####/' "$tmp/new.md" >> "$GITHUB_STEP_SUMMARY"
	summary ""
fi
case $rc in
0) summary "Passed (fail-on: $fail_on, gate: $gate)." ;;
1) summary "**Failed**: findings at or above $fail_on (gate: $gate)." ;;
*) summary "**Failed**: kubectl-cpulint could not read every file or flag (exit 2); see the log." ;;
esac
exit 0
