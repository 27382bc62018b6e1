#!/bin/sh
# Usage: benches/import/run.sh DOCKET SOURCE INPUT RUNS
# Wall time of a first import into a fresh git repository (git init, docket init .) and of a
# second import of the same (nothing to do), RUNS times, with the median of each; inputs from
# benches/import/inputs.py. Example, from the repository root:
#   python3 benches/import/inputs.py target/tmp/import-in
#   benches/import/run.sh "$PWD/target/release/docket" beads "$PWD/target/tmp/import-in/beads/issues.jsonl" 5
#   benches/import/run.sh "$PWD/target/release/docket" backlog "$PWD/target/tmp/import-in/backlog" 5
set -eu
D=$1; SRC=$2; IN=$3; RUNS=$4
first=""; again=""; n=0
for _ in $(seq 1 "$RUNS"); do
  W=$(mktemp -d)
  cd "$W"; git init -q; "$D" init . >/dev/null 2>&1
  t0=$(date +%s%N)
  "$D" import "$SRC" "$IN" >"$W/out.txt" 2>&1 || { cat "$W/out.txt"; exit 1; }
  t1=$(date +%s%N)
  "$D" import "$SRC" "$IN" >"$W/out2.txt" 2>&1
  t2=$(date +%s%N)
  first="$first $(((t1 - t0) / 1000000))"; again="$again $(((t2 - t1) / 1000000))"
  n=$(find "$W/.docket" -name '*.md' -type f | wc -l)
  cd /; rm -rf "$W"
done
med() { echo "$@" | tr ' ' '\n' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "$SRC: files $n; first import ms:$first (median $(med $first)); second import ms:$again (median $(med $again))"
