#!/usr/bin/env bash
# Builds the fuzzers (the protocol's and the network decoders') with libFuzzer and AddressSanitizer and runs each for SECONDS (default 30) on a
# copy of its seed corpus. Exits non-zero when a fuzzer finds a crash, a leak, a timeout or an
# out-of-memory, and prints where the input is kept and a hexdump of it.
#
#     Fuzz/run.sh [SECONDS]          from anywhere; CI runs `Fuzz/run.sh 6`
#     Fuzz/run.sh --build-only       builds the fuzzers and stops (CI builds them early, in the background)
#
# Environment: FUZZ_TARGETS (default "ClientFrame DaemonFrame PhyphoxGet PhyphoxConfig SensorServerMessage SensorLoggerPush PageCommand ReceiverAddress PushSpool") picks the targets; FUZZ_ARGS adds libFuzzer
# options (e.g. FUZZ_ARGS="-jobs=2 -workers=2"); TMPDIR is where the work folder goes.
set -euo pipefail

build_only=
if [ "${1:-}" = --build-only ]; then build_only=1; shift; fi
seconds=${1:-30}
case "$seconds" in
    '' | *[!0-9]*) echo "usage: $0 [SECONDS]  (whole seconds per fuzzer, default 30)" >&2; exit 2 ;;
esac
fuzz=$(cd "$(dirname "$0")" && pwd)
targets=${FUZZ_TARGETS:-ClientFrame DaemonFrame PhyphoxGet PhyphoxConfig SensorServerMessage SensorLoggerPush PageCommand ReceiverAddress PushSpool}
if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then export PATH=/opt/swift/usr/bin:$PATH; fi

start=$(date +%s)
elapsed() { echo $(( $(date +%s) - start )); }
work=$(mktemp -d "${TMPDIR:-/tmp}/coremotion-fuzz.XXXXXX")

# The fuzzers go to the Fuzz package's own build folder (Fuzz/.build), never the main one.
echo "== building the fuzzers (debug, -sanitize=fuzzer,address)"
for target in $targets; do
    if ! swift build --package-path "$fuzz" -c debug -Xswiftc -sanitize=fuzzer,address --product "${target}Fuzzer" \
        > "$work/build-$target.log" 2>&1; then
        grep -E "error:" "$work/build-$target.log" | head -n 40 || true
        tail -n 20 "$work/build-$target.log"
        echo "FAIL: ${target}Fuzzer does not build (log: $work/build-$target.log)"
        exit 1
    fi
done
bin=$(swift build --package-path "$fuzz" -c debug -Xswiftc -sanitize=fuzzer,address --show-bin-path)
echo "built in $(elapsed) s: $bin"
if [ -n "$build_only" ]; then rm -rf "$work"; exit 0; fi

failed=0
for target in $targets; do
    echo
    echo "== ${target}Fuzzer for $seconds s"
    corpus="$work/corpus-$target"
    mkdir -p "$corpus" "$work/artifacts-$target"
    cp "$fuzz/Corpus/$target/"* "$corpus/"
    log="$work/$target.log"
    status=0
    # The Swift runtime's backtracer would take libFuzzer's place on a trap: libFuzzer must see the
    # signal to keep the input.
    SWIFT_BACKTRACE=enable=no "$bin/${target}Fuzzer" "$corpus" \
        -max_total_time="$seconds" -timeout=5 -rss_limit_mb=2048 -malloc_limit_mb=256 \
        -print_final_stats=1 -artifact_prefix="$work/artifacts-$target/" ${FUZZ_ARGS:-} \
        > "$log" 2>&1 || status=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
    cov=$(grep -E '^#[0-9]+.*(DONE|INITED)' "$log" | tail -n 1 | grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+' || true)
    echo "${target}Fuzzer: ${runs:-?} executions (${rate:-?}/s), ${cov:-no coverage line}, exit $status"
    artifacts=$(find "$work/artifacts-$target" -type f | sort)
    if [ "$status" -ne 0 ] || [ -n "$artifacts" ]; then
        failed=1
        echo "FAIL: ${target}Fuzzer found a problem. Its report:"
        # The sanitizer's or the Swift runtime's report, and libFuzzer's lines about it.
        grep -nE "ERROR:|Fatal error|Precondition failed|Assertion failed|SUMMARY|Test unit written|deadly signal|out-of-memory|leak|timeout" \
            "$log" | head -n 40 || true
        echo "-- last lines of $log:"
        tail -n 40 "$log"
        for input in $artifacts; do
            echo "-- input kept at $input ($(wc -c < "$input") bytes); reproduce with:"
            echo "   $bin/${target}Fuzzer $input"
            od -A x -t x1z -v "$input" | head -n 64
        done
    else
        rm -rf "$corpus" "$work/artifacts-$target"
    fi
done

echo
if [ "$failed" -ne 0 ]; then
    echo "== FAIL after $(elapsed) s; logs and inputs kept in $work"
    exit 1
fi
rm -rf "$work"
echo "== fuzzing passed in $(elapsed) s"
