#!/usr/bin/env bash
# Runs the JMH benchmarks and writes benchmarks/RESULTS.md, benchmarks/results/handoff.png and
# benchmarks/results/lateness.png.
#
#   benchmarks/run.sh quick [JMH args...]   1 fork  x 3 x 1 s, 1 x 1 s warm-up  (a few minutes)
#   benchmarks/run.sh full  [JMH args...]   2 forks x 5 x 1 s, 3 x 1 s warm-up  (PERF.md's bar)
#   benchmarks/run.sh interleaved ROUNDS QUEUES [JMH args...]
#       one fork (3 x 1 s warm-up, 8 x 1 s) of each contender in QUEUES (comma-separated `queue`
#       params) in turn, ROUNDS times, joined into benchmarks/results/jmh-interleaved.json
#       (InterleavedForks) so that every contender samples the same stretch of the host's
#       cross-core modes; writes no report (put its rows into jmh-full.json with ReplaceResults),
#       e.g. `benchmarks/run.sh interleaved 5 toolkit,naive,lbq,peer HandOffBenchmark -p keys=spread`
#
# Extra arguments go to JMH after the profile's own, e.g. a benchmark regex
# (`benchmarks/run.sh quick 'HandOff|OneThread'`) or `-p queue=toolkit,naive`.
# Builds benchmarks/target/benchmarks.jar first when it is missing or older than a source.
# Every run uses -prof gc, so allocation per op (B/op) is in the results, and HostModeProfiler,
# which tags each iteration with the host's cross-core latency mode (near/far; CrossCoreProbe).
set -euo pipefail

profile="${1:-}"
case "$profile" in
  quick) opts=(-f 1 -wi 1 -w 1s -i 3 -r 1s) ;;
  full)  opts=(-f 2 -wi 3 -w 1s -i 5 -r 1s) ;;
  interleaved)
    opts=(-f 1 -wi 3 -w 1s -i 8 -r 1s)
    rounds="${2:?usage: $0 interleaved ROUNDS QUEUES [JMH args...]}"
    queues="${3:?usage: $0 interleaved ROUNDS QUEUES [JMH args...]}"
    shift 2 ;;
  *) echo "usage: $0 quick|full [JMH args...] | interleaved ROUNDS QUEUES [JMH args...]" >&2; exit 2 ;;
esac
shift

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
jar=benchmarks/target/benchmarks.jar
if [[ ! -f "$jar" ]] || [[ -n "$(find pom.xml */pom.xml */src -newer "$jar" -type f -print -quit)" ]]; then
  echo "building $jar"
  mvn -B -q -ntp -pl benchmarks -am package -DskipTests
fi

# Run from a copy: JMH forks load the jar when they start, so a rebuild during a long run
# (`mvn verify` packages it) would otherwise change the code under test mid-run.
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cp "$jar" "$tmp/benchmarks.jar"
jar="$tmp/benchmarks.jar"

mkdir -p benchmarks/results
json="benchmarks/results/jmh-$profile.json"
prof=(-prof gc -prof dev.workqueue.benchmarks.HostModeProfiler)

if [[ "$profile" == interleaved ]]; then
  parts=()
  for ((round = 1; round <= rounds; round++)); do
    for q in ${queues//,/ }; do
      part="$tmp/round$round-$q.json"
      echo "round $round of $rounds, queue=$q: java -jar $jar ${opts[*]} ${prof[*]} -p queue=$q $*"
      java -jar "$jar" "${opts[@]}" "${prof[@]}" -p "queue=$q" -rf json -rff "$part" "$@"
      parts+=("$part")
    done
  done
  java -cp "$jar" dev.workqueue.benchmarks.report.InterleavedForks "$json" "${parts[@]}"
  echo "wrote $json ($rounds forks per result); to report its rows, put them into jmh-full.json:"
  echo "  java -cp benchmarks/target/benchmarks.jar dev.workqueue.benchmarks.report.ReplaceResults benchmarks/results/jmh-full.json $json"
  echo "  then run ResultsReport on it (see the end of this script)"
  exit 0
fi

echo "running JMH ($profile): java -jar $jar ${opts[*]} ${prof[*]} $*"
java -jar "$jar" "${opts[@]}" "${prof[@]}" -rf json -rff "$json" "$@"

loadavg="$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || true)"
# Evidence for the report that the peer's delaying queue drops a burst of addAfters.
peerdrops="$(java -cp "$jar" dev.workqueue.benchmarks.PeerDelayingDrops || echo "failed to run")"
# PERF.md's last bar: threads owned by 1000 idle delaying queues (toolkit and peer).
idlethreads="$(java -cp "$jar" dev.workqueue.benchmarks.IdleThreads || echo "failed to run")"
java -Dreport.loadavg="$loadavg" -Dreport.peerDrops="$peerdrops" -Dreport.idleThreads="$idlethreads" \
  -cp "$jar" dev.workqueue.benchmarks.report.ResultsReport \
  "$json" benchmarks/RESULTS.md benchmarks/results/handoff.png "$profile"
