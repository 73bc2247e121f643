#!/usr/bin/env bash
# A long, polite local fuzz run: atheris in chunks until a deadline, niced, one process.
#
#   fuzz/long_run.sh WORKDIR DEADLINE_EPOCH [PYTHON]
#
# Each chunk is a fresh process, so code that changed in the work tree since the
# last chunk is fuzzed too; the corpus in WORKDIR/corpus carries coverage across
# chunks. A chunk that finds a crash stops early and leaves WORKDIR/crashes/crash-*;
# the loop then carries on. Totals: grep 'stat::number_of_executed_units' WORKDIR/chunk-*.log
set -u
work=${1:?workdir}; deadline=${2:?deadline epoch seconds}; python=${3:-python}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work/corpus" "$work/crashes"
[ -n "$(ls -A "$work/corpus")" ] || "$python" "$here/make_corpus.py" "$work/corpus"
chunk=0
while [ "$(date +%s)" -lt "$deadline" ]; do
  left=$(( deadline - $(date +%s) )); span=$(( left < 1200 ? left : 1200 ))
  [ "$span" -ge 30 ] || break
  chunk=$((chunk + 1))
  echo "chunk $chunk start $(date -u +%FT%TZ) for ${span}s" >> "$work/run.log"
  (cd "$work" && nice -n 19 "$python" "$here/atheris_load.py" "$work/corpus" \
      -dict="$here/yaml.dict" -max_total_time="$span" -timeout=20 -rss_limit_mb=2048 \
      -max_len=65536 -artifact_prefix="$work/crashes/" -print_final_stats=1 \
      > "$work/chunk-$chunk.log" 2>&1)
  echo "chunk $chunk exit $? at $(date -u +%FT%TZ)" >> "$work/run.log"
done
echo "done $(date -u +%FT%TZ)" >> "$work/run.log"
