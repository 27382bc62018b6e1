#!/usr/bin/env bash
# The official MCP conformance suite (HTTP only) against `docket serve --http`.
# Gating: the scenarios that apply to any server (SPEC section 10). Reported only: the full
# suite, whose other scenarios call the suite's own fixture tools (test_*) and resources (test://).
# usage: .ci/conformance/run.sh path/to/docket
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
docket="$1"
out="$(mktemp -d)"
GENERIC=(server-initialize ping tools-list resources-list prompts-list logging-set-level
         resources-subscribe resources-unsubscribe completion-complete server-sse-multiple-streams
         dns-rebinding-protection)

(cd "$here" && npm ci --no-audit --no-fund --loglevel=error)
"$docket" serve --demo --http 127.0.0.1:0 2>"$out/server.log" &
server=$!
trap 'kill "$server" 2>/dev/null || true' EXIT
for _ in $(seq 100); do
  url="$(grep -o 'http://[^ ]*/mcp' "$out/server.log" || true)"
  [ -n "$url" ] && break
  sleep 0.1
done
[ -n "$url" ] || { echo "the server did not start:"; cat "$out/server.log"; exit 1; }
echo "server: $url"

conformance() { (cd "$here" && npx --no-install conformance server --url "$url" -o "$out/results" "$@"); }
failed=0
for s in "${GENERIC[@]}"; do
  if conformance --scenario "$s" >"$out/$s.txt" 2>&1 && grep -q ", 0 failed" "$out/$s.txt"; then
    echo "PASS $s ($(grep -o 'Passed: [0-9]*/[0-9]*' "$out/$s.txt"))"
  else
    echo "FAIL $s"; sed 's/^/    /' "$out/$s.txt" | tail -20; failed=$((failed + 1))
  fi
done
echo "generic scenarios: $(( ${#GENERIC[@]} - failed )) passed, $failed failed"

echo "--- full suite (informational; fixture-bound scenarios need the suite's test_* tools)"
conformance >"$out/all.txt" 2>&1 || true
sed -n '/=== SUMMARY ===/,$p' "$out/all.txt"

kill -TERM "$server"
wait "$server" || { echo "the server did not exit cleanly on SIGTERM"; exit 1; }
trap - EXIT
[ "$failed" -eq 0 ]
