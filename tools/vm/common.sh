# Shared by tools/vm/run.sh (the real kernel's IIO drivers) and tools/vm/systemd.sh (a real systemd):
# phase timing, the failure exit, installing Debian packages, and choosing Debian's kernel package.
# Sourced after `cache` (the cache folder) is set.

total_start=$(date +%s.%N)
phase_start=$total_start
phase() { # phase NAME: print how long the phase that just ended took
    local now; now=$(date +%s.%N)
    printf 'phase %-10s %6.1f s\n' "$1" "$(awk "BEGIN{print $now - $phase_start}")"
    phase_start=$now
}

die() { echo "FAIL vm: $*"; echo "0 passed, 1 failed"; exit 1; }

apt_install() { # apt_install LOG PACKAGE…: install, with one `apt-get update` if the first try fails
    local log=$1; shift
    export DEBIAN_FRONTEND=noninteractive
    nice -n 10 apt-get install -y -q --no-install-recommends "$@" >"$log" 2>&1 && return 0
    nice -n 10 apt-get update -q >>"$log" 2>&1
    nice -n 10 apt-get install -y -q --no-install-recommends "$@" >>"$log" 2>&1
}

install_missing() { # install_missing PACKAGE…: apt_install them (if any), or stop with the log's end
    [ $# -gt 0 ] || return 0
    echo "installing $* (apt-get)"
    apt_install "$cache/apt.log" "$@" || { tail -20 "$cache/apt.log"; die "apt-get install $* failed (log: $cache/apt.log)"; }
}

# The kernel package linux-image-amd64 points at (e.g. linux-image-6.1.0-56-amd64), -unsigned variant
# (same kernel, no Secure Boot signature: one package with vmlinuz and modules).
resolve_kernel() {
    local p
    p=$(apt-cache depends linux-image-amd64 2>/dev/null \
        | sed -n 's/^ *Depends: \(linux-image-[0-9][0-9.]*-[0-9]*-amd64\)$/\1-unsigned/p' | head -n 1)
    [ -n "$p" ] || p=$(apt-cache pkgnames linux-image-6.1.0- 2>/dev/null \
        | grep -E '^linux-image-6\.1\.0-[0-9]+-amd64-unsigned$' | sort -V | tail -n 1)
    echo "$p"
}

choose_kernel() { # choose_kernel SUFFIX: sets pkg and kver; SUFFIX names the stage's folder in the cache
    local suffix=$1
    pkg=${COREMOTION_VM_KERNEL:-}
    [ -n "$pkg" ] || pkg=$(resolve_kernel)
    if [ -z "$pkg" ]; then
        nice -n 10 apt-get update -q >"$cache/apt-update.log" 2>&1
        pkg=$(resolve_kernel)
    fi
    if [ -z "$pkg" ]; then # no package lists at all: fall back to a kernel already in the cache
        kver=$(ls -1 "$cache" 2>/dev/null | sed -n "s/^\([0-9.]*-[0-9]*-amd64\)$suffix\$/\1/p" | sort -V | tail -n 1)
        [ -n "$kver" ] && [ -f "$cache/$kver$suffix/.ready" ] || die "apt-cache offers no linux-image-*-amd64-unsigned and the cache is empty"
        echo "apt-cache offers no kernel package; using cached $kver"
    else
        kver=${pkg#linux-image-}; kver=${kver%-unsigned}
    fi
}
