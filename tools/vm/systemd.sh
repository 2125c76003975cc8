#!/usr/bin/env bash
# tools/vm/systemd.sh — prove coremotiond as a service under a REAL systemd (PID 1 in a Debian 12 VM).
#
# Builds (once, cached) a Debian 12 root file system with debootstrap (minbase + systemd, udev, dbus,
# i2c-tools, sqlite3, …, users alice 1001 and bob 1002), boots it under QEMU (TCG, no KVM) with
# Debian's kernel, the root file system as a per-run qcow2 copy-on-write overlay of a cached ext4
# image, and the host's project (read-only, /project) and Swift runtime (read-only, /opt/swift) over
# virtio-9p. Inside, tools/vm/systemd-guest.sh installs the service the documented way
# (`coremotion service install`) and checks it under systemd; a bmi160 on i2c-stub gives the daemon
# a real IIO accelerometer and gyroscope. A second boot of the same overlay measures boot → first
# sample with the service already installed.
#
# usage: tools/vm/systemd.sh [--build-dir DIR] [--timeout SECONDS] [--smp N] [--no-watchdog] [--deb DIR] [--clients DIR]
#   --build-dir DIR   where coremotion and coremotiond were built (default .build/debug; must be under
#                     the project, which the guest sees at /project)
#   --timeout S       hard limit on each VM boot (default 900 for the checks, 240 for the second boot)
#   --smp N           virtual CPUs (default 1: the host is shared)
#   --no-watchdog     skip the 40 s SIGSTOP watchdog test
#   --deb DIR         install the .deb found in DIR (apt install ./x.deb) instead of service install
#   --clients DIR     where CompatClients and ProjectClients were built (under the project): they run against
#                     the installed daemon (check clients-through-installed-daemon)
# environment:
#   COREMOTION_VM_CACHE   cache folder (default ~/.cache/coremotion-vm)
#   COREMOTION_VM_KERNEL  kernel package to use (default: the one linux-image-amd64 depends on, -unsigned)
#   COREMOTION_VM_MIRROR  Debian mirror for debootstrap (default: the one apt uses, from /etc/apt/sources.list*)
#
# Prints each phase's duration, one line per check (PASS/FAIL/SKIP name: …, INFO context) and last
# "N passed, M failed". Exits 0 only when every check passed. Needs root (debootstrap, apt-get).
set -u -o pipefail

here=$(cd "$(dirname "$0")" && pwd)
project=$(cd "$here/../.." && pwd)
build_dir=.build/debug
vm_timeout=900
boot2_timeout=240
smp=1
watchdog=1
deb_dir=
while [ $# -gt 0 ]; do
    case "$1" in
        --build-dir) build_dir=$2; shift 2 ;;
        --timeout) vm_timeout=$2; shift 2 ;;
        --smp) smp=$2; shift 2 ;;
        --no-watchdog) watchdog=0; shift ;;
        --deb) deb_dir=$2; shift 2 ;;
        --clients) clients_dir=$2; shift 2 ;;
        -h|--help) sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "systemd.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done
case "$build_dir" in /*) ;; *) build_dir="$project/$build_dir" ;; esac
build_dir=$(cd "$build_dir" 2>/dev/null && pwd) || { echo "FAIL vm: no build folder $build_dir"; echo "0 passed, 1 failed"; exit 1; }
case "$build_dir/" in "$project"/*) rel_bin=${build_dir#"$project"/} ;; *) echo "FAIL vm: --build-dir must be under $project (shared as /project)"; echo "0 passed, 1 failed"; exit 1 ;; esac
deb_rel=
clients_rel=
if [ -n "${clients_dir:-}" ]; then
    clients_dir=$(cd "$clients_dir" && pwd) || exit 2
    case "$clients_dir/" in "$project"/*) clients_rel=${clients_dir#"$project"/} ;; *) echo "systemd.sh: --clients DIR must be under $project" >&2; exit 2 ;; esac
fi
if [ -n "$deb_dir" ]; then
    deb_dir=$(cd "$deb_dir" && pwd) || exit 2
    case "$deb_dir/" in "$project"/*) deb_rel=${deb_dir#"$project"/} ;; *) echo "systemd.sh: --deb DIR must be under $project" >&2; exit 2 ;; esac
fi
cache=${COREMOTION_VM_CACHE:-$HOME/.cache/coremotion-vm}
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)

. "$here/common.sh"

# ---------------------------------------------------------------- 1. host packages
need=()
command -v qemu-system-x86_64 >/dev/null || need+=(qemu-system-x86)
command -v qemu-img >/dev/null || need+=(qemu-utils)
command -v debootstrap >/dev/null || need+=(debootstrap)
command -v mkfs.ext4 >/dev/null || need+=(e2fsprogs)
dpkg-query -W -f='${Status}' busybox-static 2>/dev/null | grep -q 'ok installed' || need+=(busybox-static)
command -v depmod >/dev/null && command -v modprobe >/dev/null || need+=(kmod)
command -v cpio >/dev/null || need+=(cpio)
command -v perl >/dev/null || need+=(perl-base)
install_missing ${need[@]+"${need[@]}"}
phase packages

# ---------------------------------------------------------------- 2. kernel
# Same package as run.sh, but more modules kept (ext4 and virtio-blk for the root disk, crypto and lib
# helpers they need), in a folder of its own so that run.sh's cache stays as it is.
choose_kernel -systemd
kdir="$cache/$kver-systemd"
if [ ! -f "$kdir/.ready" ]; then
    echo "fetching $pkg (apt-get download) into $cache"
    rm -rf "$kdir" "$kdir.tmp" "$cache/dl-systemd"; mkdir -p "$cache/dl-systemd"
    (cd "$cache/dl-systemd" && nice -n 10 apt-get download -q "$pkg") >"$cache/download-systemd.log" 2>&1 || {
        nice -n 10 apt-get update -q >>"$cache/download-systemd.log" 2>&1
        (cd "$cache/dl-systemd" && nice -n 10 apt-get download -q "$pkg") >>"$cache/download-systemd.log" 2>&1 \
            || { tail -5 "$cache/download-systemd.log"; die "apt-get download $pkg failed"; }
    }
    nice -n 10 dpkg-deb -x "$cache"/dl-systemd/*.deb "$kdir.tmp" || die "dpkg-deb -x failed"
    m="$kdir.tmp/lib/modules/$kver"
    mkdir -p "$m.keep/kernel"
    for d in drivers/iio drivers/i2c drivers/virtio drivers/block/virtio_blk.ko drivers/char/hw_random \
             drivers/char/virtio_console.ko fs/9p fs/netfs fs/fscache fs/ext4 fs/jbd2 fs/mbcache.ko \
             fs/autofs net/9p lib crypto arch/x86/crypto; do
        [ -e "$m/kernel/$d" ] && mkdir -p "$m.keep/kernel/$(dirname $d)" && mv "$m/kernel/$d" "$m.keep/kernel/$d"
    done
    cp "$m"/modules.builtin* "$m/modules.order" "$m.keep/" 2>/dev/null
    rm -rf "$m" && mv "$m.keep" "$m"
    rm -rf "$kdir.tmp/usr"
    nice -n 10 depmod -b "$kdir.tmp" "$kver" || die "depmod failed"
    mv "$kdir.tmp" "$kdir" && touch "$kdir/.ready"
    rm -rf "$cache/dl-systemd"
fi
vmlinuz="$kdir/boot/vmlinuz-$kver"
[ -f "$vmlinuz" ] || die "no $vmlinuz in the cache"
echo "kernel $kver ($(du -sh "$kdir" | cut -f1) cached in $kdir)"
phase kernel

# ---------------------------------------------------------------- 3. Debian 12 root file system
# debootstrap from the mirror apt already uses (Debian's archive only). Cached as a folder.
mirror=${COREMOTION_VM_MIRROR:-}
if [ -z "$mirror" ]; then
    mirror=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '
        /^URIs:/ { u = $2 } /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == "bookworm" && u ~ /\/debian\/?$/) { print u; exit } }')
    [ -n "$mirror" ] || mirror=$(grep -hE '^deb .* bookworm( |$)' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null \
        | awk '{ for (i = 2; i <= NF; i++) if ($i ~ /^https?:/) { print $i; exit } }')
    [ -n "$mirror" ] || mirror=http://deb.debian.org/debian
fi
guest_packages=systemd,systemd-sysv,dbus,dbus-user-session,libpam-systemd,udev,kmod,i2c-tools,libsqlite3-0,sqlite3,sudo,procps,jq,libcap2-bin
rootfs_stamp="bookworm minbase $guest_packages v1"
rootfs="$cache/rootfs-bookworm"
if [ "$(cat "$rootfs/.cmvm-rootfs" 2>/dev/null)" != "$rootfs_stamp" ]; then
    echo "debootstrap bookworm (minbase + $guest_packages) from $mirror into $rootfs"
    rm -rf "$rootfs" "$rootfs.tmp"
    t=$(date +%s)
    nice -n 10 debootstrap --variant=minbase --include="$guest_packages" bookworm "$rootfs.tmp" "$mirror" \
        >"$cache/debootstrap.log" 2>&1 || { tail -15 "$cache/debootstrap.log"; die "debootstrap failed (log: $cache/debootstrap.log)"; }
    # Two ordinary users; the archives apt downloaded are not needed any more.
    chroot "$rootfs.tmp" useradd -m -u 1001 -s /bin/bash alice || die "useradd alice"
    chroot "$rootfs.tmp" useradd -m -u 1002 -s /bin/bash bob || die "useradd bob"
    rm -f "$rootfs.tmp"/var/cache/apt/archives/*.deb
    echo "$rootfs_stamp" > "$rootfs.tmp/.cmvm-rootfs"
    mv "$rootfs.tmp" "$rootfs"
    echo "debootstrap took $(( $(date +%s) - t )) s ($(du -sh "$rootfs" | cut -f1))"
fi
phase rootfs

# ---------------------------------------------------------------- 4. base image (ext4, cached)
# The folder plus what the VM needs (kernel modules, fstab, the test units), as an ext4 image made with
# mkfs.ext4 -d. Rebuilt when the kernel or this configuration changes; each run boots a qcow2 overlay.
# Any change of this script (units, fstab, sensors) remakes the image: about 1.5 s.
image_stamp="$rootfs_stamp | $kver | $(sha256sum "$0" | cut -c1-16)"
image="$cache/rootfs-bookworm-$kver.img"
if [ "$(cat "$image.stamp" 2>/dev/null)" != "$image_stamp" ] || [ ! -f "$image" ]; then
    echo "making $image"
    rm -f "$rootfs"/.cmvm-image
    rm -rf "$rootfs/lib/modules" && mkdir -p "$rootfs/lib/modules" && cp -a "$kdir/lib/modules/$kver" "$rootfs/lib/modules/"
    echo cmvm > "$rootfs/etc/hostname"
    printf '127.0.0.1 localhost\n127.0.1.1 cmvm\n' > "$rootfs/etc/hosts"
    cat > "$rootfs/etc/fstab" <<'FSTAB'
/dev/vda  /           ext4  rw,relatime,errors=remount-ro  0 1
project   /project    9p    trans=virtio,version=9p2000.L,ro,msize=262144,cache=loose,nofail  0 0
swift     /opt/swift  9p    trans=virtio,version=9p2000.L,ro,msize=262144,cache=loose,nofail  0 0
FSTAB
    mkdir -p "$rootfs/project" "$rootfs/opt/swift"
    printf '9p\n9pnet_virtio\n' > "$rootfs/etc/modules-load.d/cmvm-9p.conf"
    # Nothing but the test on the console: no getty, no timers that start apt or fsck jobs mid-run.
    for u in serial-getty@ttyS0.service getty@tty1.service apt-daily.timer apt-daily-upgrade.timer \
             e2scrub_all.timer e2scrub_reap.service fstrim.timer systemd-timesyncd.service; do
        ln -sf /dev/null "$rootfs/etc/systemd/system/$u"
    done
    chroot "$rootfs" passwd -d root >/dev/null
    # The sensor: a bmi160 on i2c-stub, registers as in tools/vm/guest-checks.sh (accel raw
    # (4096, −2048, 16384), gyro (1000, −500, 250)), present before coremotiond starts.
    cat > "$rootfs/usr/local/sbin/cmvm-sensors" <<'SENSORS'
#!/bin/bash
# A Bosch BMI160 on i2c-stub (tools/vm/systemd.sh): the real bmi160 IIO driver binds to it.
set -u
modprobe i2c-stub chip_addr=0x68 && modprobe i2c-dev && modprobe bmi160_i2c || exit 1
bus=
for a in /sys/bus/i2c/devices/i2c-*; do [ "$(cat "$a/name")" = "SMBus stub driver" ] && bus=${a##*/i2c-}; done
[ -n "$bus" ] || exit 1
for rv in 0x00:0xD1 0x40:0x28 0x41:0x03 0x42:0x28 0x43:0x00; do i2cset -f -y "$bus" 0x68 "${rv%%:*}" "${rv##*:}" b; done
# gyro x,y,z (1000, −500, 250) at 0x0C, accel x,y,z (4096, −2048, 16384) at 0x12, little-endian s16
i2cset -f -y "$bus" 0x68 0x0C 0xe8 0x03 0x0c 0xfe 0xfa 0x00 0x00 0x10 0x00 0xf8 0x00 0x40 i
echo "bmi160 0x68" > "/sys/bus/i2c/devices/i2c-$bus/new_device"
for _ in $(seq 1 50); do ls /sys/bus/iio/devices/iio:device* >/dev/null 2>&1 && break; sleep 0.1; done
udevadm settle -t 10
echo "$bus" > /run/cmvm-i2c-bus
SENSORS
    chmod 755 "$rootfs/usr/local/sbin/cmvm-sensors"
    cat > "$rootfs/etc/systemd/system/cmvm-sensors.service" <<'UNIT'
[Unit]
Description=cmvm: a bmi160 on i2c-stub for coremotiond
DefaultDependencies=no
After=systemd-udevd.service systemd-modules-load.service systemd-udev-trigger.service
Wants=systemd-udevd.service
Before=sysinit.target coremotiond.service coremotiond.socket
[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/usr/local/sbin/cmvm-sensors
[Install]
WantedBy=sysinit.target
UNIT
    ln -sf /etc/systemd/system/cmvm-sensors.service "$rootfs/etc/systemd/system/sysinit.target.wants/cmvm-sensors.service"
    # The checks: started by the kernel argument systemd.wants=cmvm-checks.service (first boot) or
    # systemd.wants=cmvm-boot.service (second boot); output to the serial console; power off after.
    for stage in checks boot; do
        if [ $stage = checks ]; then order="After=multi-user.target"; else order="After=coremotiond.socket cmvm-sensors.service"; fi
        cat > "$rootfs/etc/systemd/system/cmvm-$stage.service" <<UNIT
[Unit]
Description=cmvm: coremotiond checks ($stage)
$order
RequiresMountsFor=/project /opt/swift
SuccessAction=poweroff
FailureAction=poweroff
[Service]
Type=oneshot
ExecStart=/bin/bash /project/tools/vm/systemd-guest.sh $stage
StandardOutput=tty
StandardError=tty
TTYPath=/dev/ttyS0
TTYReset=no
TTYVHangup=no
TimeoutStartSec=infinity
UNIT
    done
    echo "$image_stamp" > "$rootfs/.cmvm-image"
    rm -f "$image" "$image.stamp"
    nice -n 10 mkfs.ext4 -q -F -L cmvm-root -d "$rootfs" "$image" 3G >"$cache/mkfs.log" 2>&1 \
        || { tail -5 "$cache/mkfs.log"; die "mkfs.ext4 -d failed"; }
    echo "$image_stamp" > "$image.stamp"
fi
echo "image $image ($(du -h "$image" | cut -f1) used of $(du -h --apparent-size "$image" | cut -f1))"
phase image

# ---------------------------------------------------------------- 5. initramfs and overlay
for _ in $(seq 1 60); do
    s1=$(stat -c %s "$build_dir/coremotiond" 2>/dev/null || echo 0); sleep 1
    s2=$(stat -c %s "$build_dir/coremotiond" 2>/dev/null || echo 0)
    [ -x "$build_dir/coremotion" ] && [ -x "$build_dir/coremotiond" ] && [ "$s1" = "$s2" ] && [ "$s2" -gt 0 ] && break
    sleep 1
done
[ -x "$build_dir/coremotion" ] && [ -x "$build_dir/coremotiond" ] || die "no $build_dir/coremotion{,d} (build first: swift build)"
run_dir="$cache/systemd-run"
rm -rf "$run_dir"; mkdir -p "$run_dir"
ird="$run_dir/initramfs"
mkdir -p "$ird"/{bin,proc,sys,dev,newroot,modules}
cp /bin/busybox "$ird/bin/busybox"
for a in sh mount umount insmod mkdir cat echo sleep switch_root poweroff; do ln -s busybox "$ird/bin/$a"; done
: > "$ird/modules.order"
for mod in virtio_pci virtio_blk ext4 crc32c_generic 9pnet_virtio 9p; do
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
for m in $(cat /modules.order); do insmod /modules/$m 2>/dev/null; done
for i in 1 2 3 4 5 6 7 8 9 10; do [ -b /dev/vda ] && break; sleep 0.2; done
if mount -t ext4 -o rw /dev/vda /newroot; then
    umount /proc /sys /dev
    exec switch_root /newroot /sbin/init
fi
echo "FAIL vm: cannot mount /dev/vda"
echo "0 passed, 1 failed"
poweroff -f
INIT
chmod +x "$ird/init"
(cd "$ird" && find . | cpio -o -H newc --quiet | gzip -1) > "$run_dir/initramfs.cpio.gz" || die "cpio failed"
overlay="$run_dir/root.qcow2"
qemu-img create -q -f qcow2 -F raw -b "$image" "$overlay" || die "qemu-img create failed"
phase initramfs

# ---------------------------------------------------------------- 6. boot and check
# Console lines are stamped with the host's clock (seconds since QEMU started) so that the guest's
# "MARK name" lines give times from QEMU start (boot-to-first-sample).
stamp_console() { perl -MTime::HiRes=time -e '$|=1; my $t0 = shift; while (<STDIN>) { s/\r//g; printf "%.3f %s", time - $t0, $_ }' "$1"; }
boot() { # boot STAGE TIMEOUT LOG
    local stage=$1 limit=$2 log=$3 t0 rc
    t0=$(date +%s.%N)
    timeout -k 10 "$limit" nice -n 10 qemu-system-x86_64 \
        -accel tcg -cpu max -smp "$smp" -m 1536 -nographic -no-reboot -nic none \
        -kernel "$vmlinuz" -initrd "$run_dir/initramfs.cpio.gz" \
        -append "console=ttyS0 root=/dev/vda rw quiet loglevel=3 panic=-1 systemd.show_status=0 systemd.wants=cmvm-$stage.service cmvm.bin=$rel_bin cmvm.watchdog=$watchdog cmvm.deb=$deb_rel${clients_rel:+ cmvm.clients=$clients_rel} ${COREMOTION_VM_GUEST_ARGS:-}" \
        -drive file="$overlay",if=virtio,format=qcow2 \
        -virtfs local,path="$project",mount_tag=project,security_model=none,readonly=on,multidevs=remap \
        -virtfs local,path=/opt/swift,mount_tag=swift,security_model=none,readonly=on,multidevs=remap \
        </dev/null 2>&1 | stamp_console "$t0" > "$log"
    rc=${PIPESTATUS[0]}
    return "$rc"
}
summaries=()
results() { # results STAGE LOG RC TIMEOUT: print the checks of one boot, remember its summary
    local stage=$1 log=$2 rc=$3 limit=$4 s
    sed -n 's/^[0-9.]* \(\(PASS\|FAIL\|SKIP\|INFO\) .*\)$/\1/p' "$log"
    s=$(sed -n 's/^[0-9.]* \([0-9]* passed, [0-9]* failed\)$/\1/p' "$log" | tail -n 1)
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
        echo "FAIL vm-$stage: timed out after $limit s (last console lines below)"; tail -n 15 "$log" | sed 's/^/  | /'; s="0 passed, 1 failed"
    elif [ -z "$s" ]; then
        echo "FAIL vm-$stage: no summary from the VM (qemu exit $rc; last console lines below)"; tail -n 15 "$log" | sed 's/^/  | /'; s="0 passed, 1 failed"
    fi
    summaries+=("$s")
}
log1="$cache/systemd-console-checks.log"
echo "boot 1: install and checks (qemu TCG, -smp $smp -m 1536, timeout $vm_timeout s; console: $log1)"
boot checks "$vm_timeout" "$log1"; rc1=$?
results checks "$log1" "$rc1" "$vm_timeout"
awk '$2 == "MARK" && $3 == "userspace" { printf "INFO boot 1: systemd started the checks %.1f s after QEMU started\n", $1 }' "$log1"
phase vm-checks

log2="$cache/systemd-console-boot.log"
echo "boot 2: the installed service from boot (timeout $boot2_timeout s; console: $log2)"
boot boot "$boot2_timeout" "$log2"; rc2=$?
results boot "$log2" "$rc2" "$boot2_timeout"
first=$(awk '$2 == "MARK" && $3 == "first-sample" { print $1; exit }' "$log2")
if [ -n "$first" ]; then
    echo "PASS boot-to-first-sample: $first s from QEMU start to the first accelerometer sample a client received through coremotiond (host clock; guest figures above)"
    summaries+=("1 passed, 0 failed")
else
    echo "FAIL boot-to-first-sample: no MARK first-sample on the second boot's console"
    summaries+=("0 passed, 1 failed")
fi
phase vm-boot

p=0; f=0
for s in "${summaries[@]}"; do set -- $s; p=$((p + $1)); f=$((f + $3)); done
printf 'total %.1f s\n' "$(awk "BEGIN{print $(date +%s.%N) - $total_start}")"
echo "$p passed, $f failed"
[ "$f" -eq 0 ] && [ "$p" -gt 0 ]
