#!/usr/bin/env bash
# This project's own compatibility clients: programs written the way an iOS developer writes Core Motion
# code (only `import CoreMotion`, Apple's names), for behaviour the shared clients in ../shared/compat do not
# cover. Each client runs in its own process and prints one line, `PASS name: …` or `FAIL name: …`.
#
# usage: compat/run.sh [--swift5|--swift6] [CLIENT ...]      (no CLIENT: all of them)
#   --swift5 / --swift6   the clients' language mode (default: both, one after the other)
#   COMPAT_DEVICE=VALUE   run every client on that COREMOTION_DEVICE value instead of each client's own
#   COMPAT_HEADPHONE_DEVICE=VALUE   the same for COREMOTION_HEADPHONE_DEVICE (e.g. a live sensorlogger:HOST:PORT)
# Exit status 0 when every client passed in every mode.
set -u
here=$(cd "$(dirname "$0")" && pwd)
project=$(cd "$here/.." && pwd)
modes="5 6"
clients=()
while [ $# -gt 0 ]; do
    case "$1" in
        --swift5) modes=5; shift ;;
        --swift6) modes=6; shift ;;
        -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
        *) clients+=("$1"); shift ;;
    esac
done

status=0
for mode in $modes; do
    # One package folder for both modes: the second build only recompiles the clients.
    work=${COMPAT_WORK:-${TMPDIR:-/tmp}/coremotion-project-compat}
    mkdir -p "$work/Sources"
    rm -rf "$work/Sources/ProjectClients"
    cp -R "$here/Sources/ProjectClients" "$work/Sources/ProjectClients"
    cat > "$work/Package.swift" <<PKG
// swift-tools-version:6.0
import PackageDescription
let package = Package(
    name: "ProjectClients",
    dependencies: [.package(name: "swift-core-motion", path: "$project")],
    targets: [
        .executableTarget(
            name: "ProjectClients",
            dependencies: [.product(name: "CoreMotion", package: "swift-core-motion")],
            swiftSettings: [.swiftLanguageMode(.v$mode)]
        )
    ]
)
PKG
    echo "== Swift $mode language mode"
    # CLIENT_SCRATCH (CI): a scratch folder shared with other client packages (the library and its dependencies
    # compiled once); the build plan is then made afresh for this package.
    scratch_args=()
    [ -n "${CLIENT_SCRATCH:-}" ] && scratch_args=(--scratch-path "$CLIENT_SCRATCH" --disable-build-manifest-caching)
    if ! swift build --package-path "$work" "${scratch_args[@]}" >"$work/build.log" 2>&1; then
        grep -E "error:" "$work/build.log" | sort -u | head -40
        echo "FAIL build: the clients do not compile in Swift $mode mode (log: $work/build.log)"
        status=1
        continue
    fi
    # An app's code must compile without any diagnostic: warnings in the clients fail too.
    if grep -E "^$work/Sources/.*warning:" "$work/build.log" | sort -u | head -20 | grep .; then
        echo "FAIL build: the clients compile with warnings in Swift $mode mode"
        status=1
    fi
    bin=$(swift build --package-path "$work" "${scratch_args[@]}" --show-bin-path)/ProjectClients
    list=("${clients[@]}")
    [ ${#list[@]} -gt 0 ] || read -r -a list <<< "$("$bin" --list)"
    passed=0; failed=0
    for client in "${list[@]}"; do
        device=${COMPAT_DEVICE:-$("$bin" --device "$client")}
        headphones=${COMPAT_HEADPHONE_DEVICE:-$("$bin" --headphone-device "$client")}
        out=$(cd "$here/.." && COREMOTION_DEVICE=$device COREMOTION_HEADPHONE_DEVICE=$headphones COREMOTION_HISTORY=memory \
            timeout 120 "$bin" "$client" 2>&1 | tail -n 1)
        case "$out" in
            PASS*) passed=$((passed + 1)); echo "$out" ;;
            *) failed=$((failed + 1)); echo "${out:-FAIL $client: no output (crash or timeout)}" ;;
        esac
    done
    echo "$passed passed, $failed failed (Swift $mode)"
    [ "$failed" -eq 0 ] || status=1
done
exit $status
