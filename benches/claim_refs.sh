#!/bin/sh
# 1,000 claim refs on a claims remote (issue 45): how long `docket doctor` takes in a clone that
# has not fetched them, and a `git pull` of one new issue with docket's hooks (`git-setup`).
# Usage: benches/claim_refs.sh [DOCKET_BIN] [RUNS]; prints one line per run (seconds) and the
# number of git processes each started (GIT_TRACE). Asserts nothing.
set -eu
bin=${1:-target/release/docket}
runs=${2:-3}
case $bin in /*) ;; *) bin=$PWD/$bin ;; esac
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null GIT_AUTHOR_NAME=Bench GIT_AUTHOR_EMAIL=bench@example.invalid \
  GIT_COMMITTER_NAME=Bench GIT_COMMITTER_EMAIL=bench@example.invalid DOCKET_CLAIMS_REMOTE=origin DOCKET_REMOTE_TIMEOUT=600
unset DOCKET_WORKSPACE WRANGLER_WORKSPACE_ROOT DOCKET_WORKTREES || true
now() { date +%s.%N; }
for run in $(seq "$runs"); do
  tmp=$(mktemp -d)
  git init -q -b main "$tmp/seed"
  (cd "$tmp/seed" && DOCKET_CLAIMS_REMOTE= "$bin" create --title seed >/dev/null && git add -A && git commit -qm seed)
  git clone -q --bare "$tmp/seed" "$tmp/origin.git"
  for c in maker reader puller; do git clone -q "$tmp/origin.git" "$tmp/$c"; done
  # One claim object per ref, as real claims are (each names its issue).
  mkdir "$tmp/blobs"
  for n in $(seq 1000 1999); do
    printf 'docket claim\nissue ISS-00%s\nholder someone\ntaken 2030-01-01T00:00:00Z\nat elsewhere:/work\n' "$n" >"$tmp/blobs/$n"
  done
  seq 1000 1999 | sed "s|.*|$tmp/blobs/&|" | git -C "$tmp/maker" hash-object -w --stdin-paths >"$tmp/oids"
  seq 1000 1999 | paste -d ' ' - "$tmp/oids" | sed 's|^\([0-9]*\) |create refs/docket/claims/ISS-00\1 |' |
    git -C "$tmp/maker" update-ref --stdin
  git -C "$tmp/maker" push -q origin 'refs/docket/claims/*:refs/docket/claims/*'
  (cd "$tmp/puller" && "$bin" git-setup >/dev/null)
  (cd "$tmp/maker" && DOCKET_CLAIMS_REMOTE= "$bin" create --title new >/dev/null && git add -A && git commit -qm new && git push -q origin main)
  t0=$(now)
  (cd "$tmp/reader" && GIT_TRACE="$tmp/doctor.trace" "$bin" doctor >/dev/null 2>&1) || true
  t1=$(now)
  (cd "$tmp/puller" && GIT_TRACE="$tmp/pull.trace" git pull -q --no-rebase origin main >/dev/null 2>&1)
  t2=$(now)
  d=$(grep -c 'built-in: git' "$tmp/doctor.trace" || true)
  p=$(grep -c 'built-in: git' "$tmp/pull.trace" || true)
  echo "run $run: doctor $(echo "$t1 - $t0" | bc) s ($d git processes), git pull $(echo "$t2 - $t1" | bc) s ($p git processes)"
  [ -n "${KEEP:-}" ] && echo "kept $tmp" || rm -rf "$tmp"
done
