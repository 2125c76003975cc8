#!/usr/bin/env bash
# tools/vm/run.sh — prove the IIO path on a real Linux kernel's drivers.
#
# Boots Debian's own kernel under QEMU (software emulation, no KVM), with the host's root file system
# shared read-only into the VM over virtio-9p, creates Bosch sensors on i2c-stub (the kernel's SMBus
# "chip whose registers are memory") so that the real IIO drivers (bmi160, bmc150_magn, bmp280) probe,
# and runs this project's already-built `coremotion` against them (tools/vm/guest-checks.sh).
#
# usage: tools/vm/run.sh [--build-dir DIR] [--clients DIR] [--timeout SECONDS] [--smp N] [--strict]
#   --build-dir DIR   where `coremotion` was built (default .build/debug, relative to the project)
#   --timeout S       hard limit on the whole VM run (default 300)
#   --smp N           virtual CPUs (default 1: the host is shared; TCG runs one host thread per vCPU)
#   --clients DIR     where the compatibility clients were built (CompatClients from ../shared/compat,
#                     ProjectClients from compat/): they run on the real drivers, in process and through
#                     coremotiond (CI: the shared client build folder); without it those checks SKIP
#   --strict          known issues count as FAIL instead of SKIP (also COREMOTION_VM_STRICT=1)
# environment:
#   COREMOTION_VM_CACHE   cache folder (default ~/.cache/coremotion-vm): the extracted kernel, logs
#   COREMOTION_VM_KERNEL  kernel package to use (default: the one linux-image-amd64 depends on, -unsigned)
#
# Prints each phase's duration, then one line per check (PASS/FAIL/SKIP name: …) and last
# "N passed, M failed". Exits 0 only when every check passed (a SKIP is neither).
# Needs root for apt-get (CI runs as root); everything comes from Debian's archive through apt-get.
set -u -o pipefail

here=$(cd "$(dirname "$0")" && pwd)
project=$(cd "$here/../.." && pwd)
build_dir=.build/debug
vm_timeout=300
smp=1
strict=${COREMOTION_VM_STRICT:-0}
clients_dir=
while [ $# -gt 0 ]; do
    case "$1" in
        --build-dir) build_dir=$2; shift 2 ;;
        --timeout) vm_timeout=$2; shift 2 ;;
        --smp) smp=$2; shift 2 ;;
        --strict) strict=1; shift ;;
        --clients) clients_dir=$(cd "$2" 2>/dev/null && pwd) || { echo "run.sh: no folder $2" >&2; exit 2; }; shift 2 ;;
        -h|--help) sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "run.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done
case "$build_dir" in /*) ;; *) build_dir="$project/$build_dir" ;; esac
cache=${COREMOTION_VM_CACHE:-$HOME/.cache/coremotion-vm}
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)

. "$here/common.sh"

# ---------------------------------------------------------------- 1. host packages
# command → Debian package. busybox must be the static one: it runs in the initramfs before the
# host's root (and its C library) is mounted.
need=()
command -v qemu-system-x86_64 >/dev/null || need+=(qemu-system-x86)
dpkg-query -W -f='${Status}' busybox-static 2>/dev/null | grep -q 'ok installed' || need+=(busybox-static)
command -v i2cset >/dev/null || need+=(i2c-tools)
command -v depmod >/dev/null && command -v modprobe >/dev/null || need+=(kmod)
command -v jq >/dev/null || need+=(jq)
command -v cpio >/dev/null || need+=(cpio)
command -v awk >/dev/null || need+=(gawk)
install_missing ${need[@]+"${need[@]}"}
[ -x /bin/busybox ] || die "busybox-static installed but /bin/busybox is missing"
phase packages

# ---------------------------------------------------------------- 2. kernel
choose_kernel ""
kdir="$cache/$kver"
if [ ! -f "$kdir/.ready" ]; then
    echo "fetching $pkg (apt-get download) into $cache"
    rm -rf "$kdir" "$cache/dl"; mkdir -p "$cache/dl"
    # apt-get download writes into the current folder; as root it warns that _apt cannot write
    # there and downloads unsandboxed, which is fine.
    (cd "$cache/dl" && nice -n 10 apt-get download -q "$pkg") >"$cache/download.log" 2>&1 || {
        nice -n 10 apt-get update -q >>"$cache/download.log" 2>&1
        (cd "$cache/dl" && nice -n 10 apt-get download -q "$pkg") >>"$cache/download.log" 2>&1 \
            || { tail -5 "$cache/download.log"; die "apt-get download $pkg failed"; }
    }
    nice -n 10 dpkg-deb -x "$cache"/dl/*.deb "$kdir.tmp" || die "dpkg-deb -x failed"
    # Keep only what the VM loads (about 20 MB instead of 400): IIO, I2C, virtio and 9p.
    m="$kdir.tmp/lib/modules/$kver"
    mkdir -p "$m.keep/kernel"
    for d in drivers/iio drivers/i2c drivers/virtio fs/9p fs/netfs fs/fscache net/9p; do
        [ -d "$m/kernel/$d" ] && mkdir -p "$m.keep/kernel/$(dirname $d)" && mv "$m/kernel/$d" "$m.keep/kernel/$d"
    done
    cp "$m"/modules.builtin* "$m.keep/" 2>/dev/null
    cp "$m/modules.order" "$m.keep/" 2>/dev/null
    rm -rf "$m" && mv "$m.keep" "$m"
    rm -rf "$kdir.tmp/usr"
    nice -n 10 depmod -b "$kdir.tmp" "$kver" || die "depmod failed"
    mv "$kdir.tmp" "$kdir" && touch "$kdir/.ready"
    rm -rf "$cache/dl"
fi
vmlinuz="$kdir/boot/vmlinuz-$kver"
[ -f "$vmlinuz" ] || die "no $vmlinuz in the cache"
echo "kernel $kver ($(du -sh "$kdir" | cut -f1) cached in $kdir)"
phase kernel

# ---------------------------------------------------------------- 3. initramfs
# busybox-static, the modules that mount the host's root (virtio-pci, 9p) and /init. Every other
# module (i2c-stub, the IIO drivers) is loaded inside the VM by the host's own modprobe, from the
# cache, once the host's root is mounted.
# Another build may be relinking it: wait (up to 2 min) until it exists and its size holds still.
for _ in $(seq 1 60); do
    s1=$(stat -c %s "$build_dir/coremotion" 2>/dev/null || echo 0); sleep 1
    s2=$(stat -c %s "$build_dir/coremotion" 2>/dev/null || echo 0)
    [ -x "$build_dir/coremotion" ] && [ "$s1" = "$s2" ] && [ "$s2" -gt 0 ] && break
    [ -d "$build_dir" ] || break
    sleep 1
done
[ -x "$build_dir/coremotion" ] || die "no $build_dir/coremotion (build first: swift build)"
# A project under /tmp (a CI clone there): its top folder under /tmp is bound into the VM's own /tmp.
# The same for a build folder or the clients' folder there. A comma-separated list of top folders.
tmp_keep=
for d in "$project" "$build_dir" "$clients_dir"; do
    case "$d/" in /tmp/?*/*) t=${d#/tmp/}; t=${t%%/*}; case ",$tmp_keep," in *",$t,"*) ;; *) tmp_keep="$tmp_keep${tmp_keep:+,}$t" ;; esac ;; esac
done
run_dir="$cache/run"            # read by the VM through 9p (not under /tmp: the VM mounts a tmpfs there)
rm -rf "$run_dir"; mkdir -p "$run_dir"
ird="$run_dir/initramfs"
mkdir -p "$ird"/{bin,proc,sys,dev,host,modules}
cp /bin/busybox "$ird/bin/busybox"
for a in sh mount umount insmod mkdir cat echo sleep chroot poweroff sync; do ln -s busybox "$ird/bin/$a"; done
: > "$ird/modules.order"
for mod in virtio_pci 9pnet_virtio 9p; do
    modprobe -d "$kdir" -S "$kver" --show-depends "$mod" | awk '$1 == "insmod" { print $2 }'
done | awk '!seen[$0]++' | while read -r ko; do
    cp "$ko" "$ird/modules/" && basename "$ko" >> "$ird/modules.order"
done
cat > "$ird/init" <<'INIT'
#!/bin/sh
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
for m in $(cat /modules.order); do insmod /modules/$m || echo "INFO vm: insmod $m failed"; done
run=; keep=; for a in $(cat /proc/cmdline); do case "$a" in cmvm_run=*) run=${a#cmvm_run=} ;; cmvm_tmp=*) keep=${a#cmvm_tmp=} ;; esac; done
if mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144,cache=loose host /host; then
    mount -t proc proc /host/proc
    mount -t sysfs sysfs /host/sys
    mount -t devtmpfs devtmpfs /host/dev
    # The VM's own /tmp; a project that lives under the host's /tmp (a CI clone) stays visible in it.
    [ -n "$keep" ] && mkdir -p /oldtmp && mount -o bind /host/tmp /oldtmp
    mount -t tmpfs tmpfs /host/tmp
    for k in $(echo "$keep" | tr ',' ' '); do mkdir -p "/host/tmp/$k" && mount -o bind "/oldtmp/$k" "/host/tmp/$k"; done
    mount -t tmpfs tmpfs /host/run
    mount -t tracefs tracefs /host/sys/kernel/tracing 2>/dev/null
    echo "INFO vm: user space up after $(cut -d' ' -f1 /proc/uptime) s"
    chroot /host /bin/bash "$run/guest-checks.sh" "$run/env.sh"
    echo "INFO vm: checks ended (exit $?) at $(cut -d' ' -f1 /proc/uptime) s"
else
    echo "FAIL vm: cannot mount the host's root over virtio-9p"
    echo "0 passed, 1 failed"
fi
sync
poweroff -f
INIT
chmod +x "$ird/init"
cp "$here/guest-checks.sh" "$run_dir/guest-checks.sh"
cat > "$run_dir/env.sh" <<ENV
CMVM_PROJECT='$project'
CMVM_BIN='$build_dir'
CMVM_KDIR='$kdir'
CMVM_KVER='$kver'
CMVM_STRICT='$strict'
CMVM_CLIENTS='$clients_dir'
ENV
(cd "$ird" && find . | cpio -o -H newc --quiet | gzip -1) > "$run_dir/initramfs.cpio.gz" || die "cpio failed"
phase initramfs

# ---------------------------------------------------------------- 4. boot and check
log="$cache/last-console.log"
echo "booting (qemu TCG, -m 1024, timeout ${vm_timeout} s; console log: $log)"
timeout -k 10 "$vm_timeout" nice -n 10 qemu-system-x86_64 \
    -accel tcg -cpu max -smp "$smp" -m 1024 -nographic -no-reboot -nic none \
    -kernel "$vmlinuz" -initrd "$run_dir/initramfs.cpio.gz" \
    -append "console=ttyS0 loglevel=1 panic=-1 cmvm_run=$run_dir${tmp_keep:+ cmvm_tmp=$tmp_keep}" \
    -virtfs local,path=/,mount_tag=host,security_model=none,readonly=on,multidevs=remap \
    </dev/null >"$log" 2>&1
qemu_rc=$?
tr -d '\r' < "$log" > "$log.txt" && mv "$log.txt" "$log"
grep -E '^(PASS|FAIL|SKIP|INFO) ' "$log"
phase vm
summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1)
if [ "$qemu_rc" -eq 124 ] || [ "$qemu_rc" -eq 137 ]; then
    echo "FAIL vm: timed out after ${vm_timeout} s (last console lines below)"
    tail -n 15 "$log" | sed 's/^/  | /'
    summary=
elif [ -z "$summary" ]; then
    echo "FAIL vm: no summary from the VM (qemu exit $qemu_rc; last console lines below)"
    tail -n 15 "$log" | sed 's/^/  | /'
fi
printf 'total %.1f s\n' "$(awk "BEGIN{print $(date +%s.%N) - $total_start}")"
if [ -z "$summary" ]; then
    p=$(grep -c '^PASS ' "$log"); f=$(grep -c '^FAIL ' "$log")
    echo "$p passed, $((f + 1)) failed"
    exit 1
fi
echo "$summary"
case "$summary" in *" 0 failed") [ "${summary%% *}" -gt 0 ] && exit 0 ;; esac
exit 1
