#!/bin/bash
# tools/vm/systemd-guest.sh — runs INSIDE the Debian 12 VM booted by tools/vm/systemd.sh, as the oneshot
# unit cmvm-checks.service (first boot: STAGE=checks) or cmvm-boot.service (second boot: STAGE=boot),
# with systemd as PID 1. /project is the host's project (read-only 9p), /opt/swift the host's Swift
# runtime, a bmi160 sits on i2c-stub (cmvm-sensors.service, before coremotiond).
# usage: systemd-guest.sh checks|boot
# Output: "PASS name: …", "FAIL name: …", "SKIP name: …", "INFO …", "MARK name" (the host stamps those
# with its own clock), last "N passed, M failed".
set -u
stage=${1:-checks}
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8 LC_ALL=C.UTF-8 SYSTEMD_PAGER= SYSTEMD_COLORS=0
cd /
bin=.build/debug; watchdog=1; deb=; stop_after=; clients=
for a in $(cat /proc/cmdline); do
    case "$a" in cmvm.bin=*) bin=${a#cmvm.bin=} ;; cmvm.watchdog=*) watchdog=${a#cmvm.watchdog=} ;; cmvm.deb=*) deb=${a#cmvm.deb=} ;; cmvm.stop=*) stop_after=${a#cmvm.stop=} ;; cmvm.clients=*) clients=${a#cmvm.clients=} ;; esac
done
B=/project/$bin
# The tool as installed: /usr/bin from the package (cmvm.deb), /usr/local/bin from `service install`.
if [ -n "$deb" ] && [ "$stage" = checks ]; then cm=/usr/bin/coremotion; else cm=$(command -v coremotion || echo /usr/local/bin/coremotion); fi
units=/etc/systemd/system; user_units=/home/alice/.config/systemd/user
[ -n "$deb" ] && [ "$stage" = checks ] && { units=/usr/lib/systemd/system; user_units=/usr/lib/systemd/user; }
w=/tmp/cmvm; mkdir -p "$w"; chmod 755 "$w"
passed=0; failed=0; skipped=0
t_mark=$(cut -d' ' -f1 /proc/uptime)
took=
now() { local u _; read -r u _ < /proc/uptime; echo "$u"; }
stamp() { local t; t=$(now); took=$(awk -v a="$t_mark" -v b="$t" 'BEGIN { printf "[%.1f s]", b - a }'); t_mark=$t; }
pass() { stamp; echo "PASS $1: $2 $took"; passed=$((passed + 1)); }
fail() { stamp; echo "FAIL $1: $2 $took"; failed=$((failed + 1)); }
skip() { stamp; echo "SKIP $1: $2 $took"; skipped=$((skipped + 1)); }
info() { echo "INFO $*"; }
sub() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a - b }'; }                     # A − B, 0.1
us2s() { awk -v a="$1" 'BEGIN { printf "%.2f", a / 1e6 }'; }                              # µs → s
prop() { systemctl show -p "$2" --value "$1"; }                                            # prop UNIT PROPERTY
svc() { prop coremotiond.service "$1"; }
as_user() { local u=$1; shift; runuser -u "$u" -- env HOME="/home/$u" USER="$u" "$@"; }   # as_user USER CMD…
as_alice_user() { # the user manager's environment
    runuser -u alice -- env HOME=/home/alice USER=alice XDG_RUNTIME_DIR=/run/user/1001 \
        DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/1001/bus "$@"
}
wait_for() { # wait_for SECONDS CMD…: until CMD succeeds
    local end; end=$(awk -v n="$(now)" -v s="$1" 'BEGIN { print n + s }'); shift
    until "$@"; do awk -v n="$(now)" -v e="$end" 'BEGIN { exit !(n > e) }' && return 1; sleep 0.2; done
}
active() { [ "$(svc ActiveState)" = active ]; }
journal_tail() { journalctl -b --no-pager -o short-monotonic -u coremotiond.service "$@" 2>/dev/null | tail -n 8 | sed 's/^/INFO   journal: /'; }
echo "MARK userspace"
info "guest: kernel $(uname -r), $(systemctl --version | head -n 1), $(nproc) CPU, uptime $(now) s, stage $stage"
ldd "$B/coremotiond" 2>&1 | grep -q 'not found' && info "ldd coremotiond: $(ldd "$B/coremotiond" | grep 'not found' | tr '\n' ' ')"

# pty_stream CMD…: runs CMD on a pseudo-terminal (so that `coremotion demo` redraws its live line ten
# times a second) and prints each redraw as "UPTIME LINE".
pty_stream() {
    local cmd l u _; printf -v cmd '%q ' "$@"
    script -qfec "$cmd" /dev/null < /dev/null 2>&1 | tr '\r' '\n' | while IFS= read -r l; do
        read -r u _ < /proc/uptime   # no fork per line: the stamp must not lag behind the stream
        [ -n "$l" ] && printf '%s %s\n' "$u" "$l"
    done
}
# acc_of LINE: the "x y z" of a demo line's acc[g]
acc_re='acc\[g\] +([-+][0-9.]+) +([-+][0-9.]+) +([-+][0-9.]+)'
acc_of() { [[ $1 =~ $acc_re ]] && echo "${BASH_REMATCH[1]} ${BASH_REMATCH[2]} ${BASH_REMATCH[3]}"; }
history_db() { find /var/lib/coremotion/ -maxdepth 1 -type f \( -name '*.sqlite' -o -name '*.db' -o -name '*.sqlite3' \) 2>/dev/null | head -n 1; }
recorded() { # recorded samples in the daemon's history (service status --json), or ""
    COREMOTION_DEVICE=service timeout 60 "$cm" service status --json 2>/dev/null \
        | jq -r '.history.accelerometerSamples // empty' 2>/dev/null
}

if [ "$stage" = boot ]; then
    # ------------------------------------------------------------ second boot: service installed
    # boot-to-first-sample: a client started as early as the socket exists; the host turns the MARK
    # line into seconds since QEMU started.
    t_client=$(now)
    first=
    while read -r t l; do
        [[ $l =~ $acc_re ]] || continue
        a="${BASH_REMATCH[1]} ${BASH_REMATCH[2]} ${BASH_REMATCH[3]}"
        if [ "$a" != "+0.00 +0.00 +0.00" ]; then
            first=$t; echo "MARK first-sample"
            info "first sample at guest uptime $t s (client started at $t_client s): acc [g] $a"
            break
        fi
    done < <(pty_stream env COREMOTION_DEVICE=service "$cm" demo --device service --duration 25)
    exec_us=$(svc ExecMainStartTimestampMonotonic); ready_us=$(svc ActiveEnterTimestampMonotonic)
    info "daemon started at uptime $(us2s "$exec_us") s, READY=1 (active) at $(us2s "$ready_us") s; $(systemd-analyze time 2>/dev/null | head -n 1)"
    if [ -n "$first" ]; then
        pass first-sample-after-boot "client got its first sample at guest uptime $first s (daemon ready at $(us2s "$ready_us") s)"
    else
        fail first-sample-after-boot "no sample in 25 s"; journal_tail
    fi
    # history-persists: the history written before the first boot's poweroff is there and sound.
    before=$(cat /var/lib/cmvm-recorded 2>/dev/null)
    after=$(recorded)
    db=$(history_db)
    ic=$( [ -n "$db" ] && sqlite3 "file:$db?mode=ro" 'PRAGMA integrity_check;' 2>&1 | head -n 3 | tr '\n' ' ')
    if [ -n "$after" ] && [ -n "$before" ] && [ "$after" -ge "$before" ] && [ "${ic% }" = ok ]; then
        pass history-persists "recorded samples $before before the first boot's poweroff, $after now; integrity_check $ic($db)"
    else
        fail history-persists "recorded samples before '$before', now '$after'; integrity_check '$ic' ($db)"
    fi
    echo "$passed passed, $failed failed"
    exit 0
fi

# ================================================================== first boot: install and checks
[ -x "$B/coremotion" ] && [ -x "$B/coremotiond" ] || { fail setup "no $B/coremotion{,d} in the guest"; echo "$passed passed, $failed failed"; exit 1; }
iio=$(ls -d /sys/bus/iio/devices/iio:device* 2>/dev/null | head -n 1)
info "sensor: ${iio:-none} ($(cat "$iio/name" 2>/dev/null)), /dev: $(ls /dev | grep iio | tr '\n' ' '), cmvm-sensors $(prop cmvm-sensors.service ActiveState)"

# --- install: the documented way (binaries to /usr/local/bin, `coremotion service install`).
t0=$(now)
debfile=$( [ -n "$deb" ] && ls /project/"$deb"/*.deb 2>/dev/null | head -n 1)
if [ -n "$debfile" ]; then
    how="apt-get install $debfile"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$debfile" > "$w/install.out" 2>&1; rc=$?
else
    # The documented install from a build (docs/service-lifecycle.md): the binaries and their SwiftPM resource
    # bundles (the activity model, the magnetic model, the view's page) beside them, then the units.
    how="install -m 0755 coremotion coremotiond /usr/local/bin && cp -r *.resources /usr/local/bin && coremotion service install"
    install -m 0755 "$B/coremotion" "$B/coremotiond" /usr/local/bin/ && cp -r "$B"/*.resources /usr/local/bin/ \
        && "$cm" service install > "$w/install.out" 2>&1; rc=$?
fi
t_install=$(sub "$(now)" "$t0")
sed 's/^/INFO   install: /' "$w/install.out" | head -n 20
missing=
if [ -n "$debfile" ]; then
    expected="/usr/lib/coremotion/coremotion /usr/lib/coremotion/coremotiond /usr/bin/coremotion /usr/bin/coremotiond
        $units/coremotiond.socket $units/coremotiond.service $user_units/coremotiond.socket $user_units/coremotiond.service
        /usr/lib/sysusers.d/coremotion.conf /usr/lib/tmpfiles.d/coremotion.conf /usr/lib/udev/rules.d/60-coremotion-iio.rules
        /usr/share/man/man1/coremotion.1.gz /usr/share/doc/coremotion/copyright
        /usr/share/bash-completion/completions/coremotion /usr/share/zsh/vendor-completions/_coremotiond"
else
    expected="$units/coremotiond.socket $units/coremotiond.service /etc/sysusers.d/coremotion.conf"
fi
for f in $expected; do [ -e "$f" ] || missing="$missing $f"; done
[ -n "$debfile" ] && how="$how ($(dpkg-query -W -f='${Package} ${Version}, ${Installed-Size} KiB' coremotion 2>&1); $(dpkg -L coremotion 2>/dev/null | wc -l) paths)"
acct="user $(getent passwd coremotion | cut -d: -f1,3,6 | tr ':' ' '), groups $(getent group coremotion coremotion-history | cut -d: -f1,3 | tr '\n' ' ')"
wait_for 60 sh -c 'case $(systemctl show -p ActiveState --value coremotiond.service) in active|failed) exit 0 ;; esac; [ "$(systemctl show -p NRestarts --value coremotiond.service)" -ge 1 ]'
state_after=$(svc ActiveState)
en="socket $(systemctl is-enabled coremotiond.socket 2>&1)/$(systemctl is-active coremotiond.socket 2>&1), service $(systemctl is-enabled coremotiond.service 2>&1)/$state_after (NRestarts=$(svc NRestarts))"
if [ "$rc" -eq 0 ] && [ -z "$missing" ] && getent passwd coremotion >/dev/null && getent group coremotion-history >/dev/null \
   && [ "$(systemctl is-active coremotiond.socket)" = active ] && [ "$state_after" = active ]; then
    pass install "$how: exit 0 in $t_install s; $acct; $en"
else
    fail install "$how: exit $rc in $t_install s; missing:${missing:- none}; $acct; $en"
    journalctl -b --no-pager -o short-monotonic -u coremotiond.service 2>/dev/null | grep -E 'Fatal error|Main process exited|swift-backtrace|Failed with' | head -n 6 | sed 's/^/INFO   journal: /'
    # Before the engine looked its resources up itself, a daemon without its resource bundles trapped in
    # Bundle.module at every start; if that is seen again, put them beside the binaries so that the other
    # checks can run, and say so.
    if journalctl -b --no-pager -u coremotiond.service 2>/dev/null | grep -q 'could not load resource bundle'; then
        cp -r "$B"/*.resources /usr/local/bin/
        info "WORKAROUND: copied $(cd "$B" && ls -d *.resources | tr '\n' ' ')to /usr/local/bin and restarted the service"
        systemctl reset-failed coremotiond.service; systemctl restart coremotiond.service
        wait_for 60 active
        info "with the resource bundles the service is $(svc ActiveState)"
    fi
fi
# The installed executables say the release's version, and bash completes their subcommands from the
# packaged completion script (what bash-completion loads when the user presses Tab).
if [ -n "$debfile" ]; then
    v_cli=$(/usr/bin/coremotion --version 2>&1); v_daemon=$(/usr/bin/coremotiond --version 2>&1)
    deb_version=$(dpkg-query -W -f='${Version}' coremotion 2>/dev/null)
    completed=$(bash -c 'source /usr/share/bash-completion/completions/coremotion 2>/dev/null
        COMP_WORDS=(coremotion hist); COMP_CWORD=1; COMP_LINE="coremotion hist"; COMP_POINT=${#COMP_LINE}
        _coremotion coremotion hist coremotion 2>/dev/null; echo "${COMPREPLY[*]}"')
    if [ -n "$v_cli" ] && [ "$v_cli" = "$v_daemon" ] && [ "${deb_version#"$v_cli"}" != "$deb_version" ] && [ "$completed" = history ]; then
        pass version-and-completion "coremotion --version and coremotiond --version say $v_cli (package $deb_version); bash completes 'coremotion hist' to '$completed'"
    else
        fail version-and-completion "coremotion --version '$v_cli', coremotiond --version '$v_daemon', package '$deb_version'; bash completes 'coremotion hist' to '$completed'"
    fi
fi
[ "$stop_after" = install ] && { echo "$passed passed, $failed failed"; exit 0; }
info "after install the service is $(svc ActiveState) (install runs systemctl enable --now on the socket AND the service, as docs/service-lifecycle.md says)"
info "daemon status text: '$(svc StatusText)'"

# --- iio-udev-rule: the project's rule gives the coremotion group the device node and the attributes.
t0=$(now)
# The package brings the rule (/usr/lib/udev/rules.d); the build-tree install copies the project's.
[ -n "$debfile" ] || cp /project/systemd/udev/60-coremotion-iio.rules /etc/udev/rules.d/
udevadm control --reload && udevadm trigger --subsystem-match=iio --action=add && udevadm settle -t 20
if [ -n "$iio" ]; then
    node=/dev/${iio##*/}
    nodeperm=$(stat -c '%A %U:%G' "$node" 2>&1)
    attrs=$(cd "$iio" && stat -c '%A %G %n' in_accel_sampling_frequency in_anglvel_sampling_frequency buffer/enable buffer/length scan_elements/in_accel_x_en 2>&1 | tr '\n' ';')
    if [ "$nodeperm" = "crw-rw---- root:coremotion" ] && ! grep -q -- '-r--r--r--\|root in_' <<<"$attrs" && [ "$(grep -o 'rw-rw-r-- coremotion\|rw-rw---- coremotion' <<<"$attrs" | wc -l)" -ge 4 ]; then
        pass iio-udev-rule "$node $nodeperm; $attrs"
    else
        fail iio-udev-rule "$node $nodeperm; $attrs"
    fi
    systemctl restart coremotiond.service; wait_for 60 active
else
    skip iio-udev-rule "no IIO device (cmvm-sensors failed)"
fi

# --- device-allow: the unit's DevicePolicy= and DeviceAllow= (read from the installed unit) admit the IIO
# character device and nothing else. The daemon polls here (no trigger without an IRQ) and never opens the node,
# so a transient unit with the same two properties opens it, as user coremotion: with them it opens; with the
# policy alone (no DeviceAllow=) the device cgroup refuses it; a block device is refused even to root.
if [ -n "$iio" ]; then
    node=/dev/${iio##*/}; pol=$(svc DevicePolicy); allow=$(svc DeviceAllow)
    # One DeviceAllow= per line of the unit's list (ProtectClock=yes adds "char-rtc r").
    allow_args=(); while IFS= read -r l; do [ -n "$l" ] && allow_args+=(-p "DeviceAllow=$l"); done <<<"$allow"
    open_as() { # open_as USER NODE PROPERTY…: "open-ok" or the error
        local u=$1 n=$2; shift 2
        systemd-run --wait --pipe --quiet -p User="$u" "$@" /bin/sh -c "exec 3<$n && echo open-ok" 2>&1 | tail -n 1
    }
    with=$(open_as coremotion "$node" -p DevicePolicy="$pol" "${allow_args[@]}")
    without=$(open_as coremotion "$node" -p DevicePolicy="$pol")
    blk=$(open_as root /dev/vda -p DevicePolicy="$pol" "${allow_args[@]}")
    fig="unit: DevicePolicy=$pol DeviceAllow='$(tr '\n' ';' <<<"$allow")'; $node as coremotion with them: '$with'; with the policy alone: '$without'; /dev/vda as root with them: '$blk'"
    if [ "$with" = open-ok ] && [ "$without" != open-ok ] && [ "$blk" != open-ok ] && [ -n "$allow" ]; then
        pass device-allow "$fig"
    else
        fail device-allow "$fig"
    fi
fi

# --- unit-clean: systemd-analyze verify prints nothing; the security score.
v=$(systemd-analyze verify "$units/coremotiond.service" "$units/coremotiond.socket" 2>&1)
sec=$(systemd-analyze security coremotiond.service 2>&1 | grep -i 'overall exposure' | sed 's/.*: *//')
secoff=$(systemd-analyze security --offline=yes "$units/coremotiond.service" 2>&1 | grep -i 'overall exposure' | sed 's/.*: *//')
if [ -z "$v" ]; then
    pass unit-clean "systemd-analyze verify: no output; security: ${sec:-?} (online), ${secoff:-?} (--offline=yes)"
else
    fail unit-clean "systemd-analyze verify: $(tr '\n' '|' <<<"$v"); security ${sec:-?}"
fi
systemd-analyze security coremotiond.service 2>/dev/null | grep '✗' | head -n 12 | sed 's/^/INFO   security: /'

# --- socket-activation: service stopped, socket listening; a client starts it; active only after READY=1.
systemctl stop coremotiond.service
sleep 3
st1=$(svc ActiveState); sk=$(systemctl is-active coremotiond.socket); sperm=$(stat -c '%A %U:%G' /run/coremotion/coremotiond.sock 2>&1)
t_client=$(now)
COREMOTION_DEVICE=service timeout 120 "$cm" service status > "$w/status.out" 2>&1; rc=$?
t_done=$(now)
exec_us=$(svc ExecMainStartTimestampMonotonic); ready_us=$(svc ActiveEnterTimestampMonotonic)
trig=$(svc TriggeredBy); st2=$(svc ActiveState); stext=$(svc StatusText)
exec_s=$(us2s "$exec_us"); ready_s=$(us2s "$ready_us")
started=$(journalctl -b --no-pager -o short-monotonic -u coremotiond.service 2>/dev/null | grep 'Started ' | tail -n 1 | sed 's/^\[ *\([0-9.]*\)\].*/\1/')
fig="client at ${t_client} s, daemon exec at $exec_s s (+$(sub "$exec_s" "$t_client")), READY=1/active at $ready_s s (+$(sub "$ready_s" "$exec_s") after exec), journal 'Started' at ${started:-?} s, client done at $t_done s (exit $rc)"
if [ "$st1" = inactive ] && [ "$sk" = active ] && [ "$rc" -eq 0 ] && [ "$st2" = active ] \
   && awk -v c="$t_client" -v e="$exec_s" -v r="$ready_s" 'BEGIN { exit !(e >= c && r > e) }'; then
    pass socket-activation "stopped: service $st1, socket $sk ($sperm); $fig; TriggeredBy=$trig; STATUS='$stext'"
else
    fail socket-activation "before client: service $st1, socket $sk ($sperm); after: $st2; $fig"
    sed 's/^/INFO   status: /' "$w/status.out" | head -n 5; journal_tail
fi
head -n 1 "$w/status.out" | sed 's/^/INFO   status: /'

# --- runs-unprivileged: user, capabilities, the history's modes.
pid=$(svc MainPID)
user=$(ps -o user= -p "$pid" 2>/dev/null | tr -d ' ')
caps=$(awk '/^Cap(Inh|Prm|Eff|Bnd|Amb)/ { printf "%s%s ", $1, $2 }' "/proc/$pid/status" 2>/dev/null)
capeff=$(awk '/^CapEff/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
nnp=$(awk '/^NoNewPrivs/ { print $2 }' "/proc/$pid/status"); secc=$(awk '/^Seccomp:/ { print $2 }' "/proc/$pid/status")
dmode=$(stat -c '%a %U:%G' /var/lib/coremotion 2>&1)
# StateDirectory= with User= may make /var/lib/coremotion a symlink into /var/lib/private only with DynamicUser=; stat follows.
files=$(find /var/lib/coremotion/ -mindepth 1 -maxdepth 1 -printf '%f %m %u\n' 2>/dev/null | tr '\n' ';')
badfiles=$(find /var/lib/coremotion/ -mindepth 1 \( -type f -not -perm 600 -o -not -user coremotion \) -printf '%f ' 2>/dev/null)
if [ "$user" = coremotion ] && [ "$capeff" = 0000000000080000 ] && [ "$dmode" = "700 coremotion:coremotion" ] && [ -n "$files" ] && [ -z "$badfiles" ]; then
    pass runs-unprivileged "pid $pid user $user; $caps= $(capsh --decode="$capeff" 2>/dev/null); NoNewPrivs $nnp, Seccomp $secc; /var/lib/coremotion $dmode: $files"
else
    fail runs-unprivileged "pid $pid user '$user'; $caps($(capsh --decode="${capeff:-0}" 2>/dev/null)); /var/lib/coremotion $dmode: $files; not 0600/coremotion: ${badfiles:-none}"
fi

# --- iio-as-coremotion: the daemon, as user coremotion, reads the bmi160 (values as guest-checks.sh
# computes them: accel raw (4096, −2048, 16384) · 0.000598 m/s² → (−0.25, +0.12, −1.00) g).
info "journal: $(journalctl -b --no-pager -u coremotiond.service 2>/dev/null | grep -c 'Failed to set thread priority') 'Failed to set thread priority for worker thread: … errno=1' lines from libdispatch (setpriority is in @resources, denied by SystemCallFilter=~@resources … with EPERM)"
if [ -n "$iio" ]; then
    # The chip set to 25 Hz first: the daemon must write its own rate through the unit's read-only /sys
    # (ProtectKernelTunables=yes; ReadWritePaths=-/sys/devices keeps the device tree writable).
    # Stopped first, so that the daemon the demo activates sets its capture up from scratch.
    systemctl stop coremotiond.service
    echo 25 > "$iio/in_accel_sampling_frequency" 2>/dev/null
    rate_before=$(cat "$iio/in_accel_sampling_frequency" 2>&1)
    COREMOTION_DEVICE=service timeout 120 "$cm" demo --device service --duration 6 > "$w/demo.out" 2>&1; rc=$?
    rate_after=$(cat "$iio/in_accel_sampling_frequency" 2>&1)
    erofs=$(journalctl -b --no-pager -u coremotiond.service 2>/dev/null | grep -ci 'read-only file system\|EROFS')
    last=$(grep 'acc\[g\]' "$w/demo.out" | tail -n 1); a=$(acc_of "$last")
    n=$(sed -n 's/^\([0-9]*\) accelerometer.*/\1/p' "$w/demo.out" | tail -n 1)
    COREMOTION_DEVICE=service timeout 60 "$cm" service status > "$w/status2.out" 2>&1
    dev=$(grep -i '^device' "$w/status2.out" | head -n 1); acl=$(grep -i '^accelerometer' "$w/status2.out" | head -n 1 | tr -s ' ')
    if [ "$rc" -eq 0 ] && [ "$a" = "-0.25 +0.12 -1.00" ] && [ "${n:-0}" -gt 0 ] && [ "$rate_after" != "$rate_before" ] && [ "$erofs" = 0 ]; then
        pass iio-as-coremotion "demo through the daemon: $n accelerometer samples in 6 s, acc [g] $a; the daemon set in_accel_sampling_frequency '$rate_before' → '$rate_after' through the read-only /sys; $dev; $acl"
    else
        fail iio-as-coremotion "demo exit $rc, ${n:-0} samples, acc [g] '$a' (expected -0.25 +0.12 -1.00); in_accel_sampling_frequency '$rate_before' → '$rate_after' (the daemon's write), $erofs EROFS lines; $dev; $acl"
        tail -n 4 "$w/demo.out" | sed 's/^/INFO   demo: /'
    fi
    journalctl -b --no-pager -u coremotiond.service -p warning 2>/dev/null | grep -v '^--' | tail -n 6 | sed 's/^/INFO   daemon warning: /'
fi

# --- udev-mount-matrix: a board's mounting from udev (systemd's 60-sensor.hwdb sets ACCEL_MOUNT_MATRIX the
# same way), on the real driver, which shows the identity ("mounting matrix not found": i2c-stub devices have
# no firmware node to carry a "mount-matrix" property). Rows give device axes: x' = −y, y' = x, z' = z, so
# Apple's (−0.25, +0.12, −1.00) g becomes (−0.12, −0.25, −1.00) g and the gyroscope (1.06, −0.53, 0.27) rad/s
# turns with it to (0.53, 1.06, 0.27): one chip, one frame.
if [ -n "$iio" ]; then
    printf 'SUBSYSTEM=="iio", KERNEL=="iio:device*", ATTR{name}=="bmi160", ENV{ACCEL_MOUNT_MATRIX}="0, -1, 0; 1, 0, 0; 0, 0, 1"\n' \
        > /etc/udev/rules.d/61-cmvm-mount-matrix.rules
    udevadm control --reload && udevadm trigger --subsystem-match=iio --action=change && udevadm settle -t 20
    dbline=$(grep -h ACCEL_MOUNT_MATRIX /run/udev/data/c"$(cat "$iio/dev" 2>/dev/null)" 2>/dev/null)
    systemctl restart coremotiond.service; wait_for 60 active
    COREMOTION_DEVICE=service timeout 120 "$cm" demo --device service --duration 4 > "$w/matrix.out" 2>&1; rc=$?
    last=$(grep 'acc\[g\]' "$w/matrix.out" | tail -n 1); a=$(acc_of "$last")
    g=$(sed -n 's/.*gyro\[rad\/s\] *\([-+][0-9.]*\) *\([-+][0-9.]*\) *\([-+][0-9.]*\).*/\1 \2 \3/p' <<<"$last")
    if [ "$rc" -eq 0 ] && [ "$a" = "-0.12 -0.25 -1.00" ] && [ "$g" = "+0.53 +1.06 +0.27" ]; then
        pass udev-mount-matrix "udev database: '${dbline:-none}'; through the daemon acc [g] $a, gyro [rad/s] $g (without the rule -0.25 +0.12 -1.00 and +1.06 -0.53 +0.27)"
    else
        fail udev-mount-matrix "udev database: '${dbline:-none}'; demo exit $rc: acc [g] '$a' (expected -0.12 -0.25 -1.00), gyro '$g' (expected +0.53 +1.06 +0.27)"
        tail -n 3 "$w/matrix.out" | sed 's/^/INFO   demo: /'
    fi
    rm -f /etc/udev/rules.d/61-cmvm-mount-matrix.rules
    udevadm control --reload && udevadm trigger --subsystem-match=iio --action=change && udevadm settle -t 20
    systemctl restart coremotiond.service; wait_for 60 active
fi

# --- clients-through-installed-daemon: unchanged iOS-style clients (../shared/compat and compat/, built on the
# host) against the daemon as installed, as root (a member of nothing: root may connect). known-values must
# read the bmi160's registers exactly: acc (4096, −2048, 16384) · 0.000598 → (−0.249770, 0.124885, −0.999080) g,
# gyro (1000, −500, 250) · 0.001065 → (1.065, −0.5325, 0.26625) rad/s.
if [ -n "$clients" ] && [ -x "/project/$clients/CompatClients" ] && [ -x "/project/$clients/ProjectClients" ] && [ -n "$iio" ]; then
    t0=$(now); okc=0; badc=0; lines=
    "$cm" permissions grant CompatClients > /dev/null 2>&1; "$cm" permissions grant ProjectClients > /dev/null 2>&1
    for c in known-values pull-accelerometer push-accelerometer main-queue-accelerometer; do
        b=/project/$clients/CompatClients; [ "$c" = known-values ] && b=/project/$clients/ProjectClients
        out=$(cd /project && COREMOTION_DEVICE=service KNOWN_VALUES="acc=-0.249770,0.124885,-0.999080 gyro=1.065,-0.5325,0.26625" timeout 120 "$b" "$c" 2>&1 | tail -n 1)
        case "$out" in PASS*) okc=$((okc + 1)) ;; *) badc=$((badc + 1)) ;; esac
        info "  installed daemon: ${out:-FAIL $c: no output}"
        lines="$lines${out%%:*}; "
    done
    if [ "$badc" = 0 ]; then pass clients-through-installed-daemon "$okc clients through $(readlink -f "$cm" | sed 's|/coremotion$||')'s daemon: $lines($(sub "$(now)" "$t0") s)"; else fail clients-through-installed-daemon "$badc of $((okc + badc)) failed: $lines"; fi
elif [ -n "$clients" ]; then
    fail clients-through-installed-daemon "no CompatClients/ProjectClients in /project/$clients"
fi

# --- stop: SIGTERM → exit 0 within TimeoutStopSec=10.
t0=$(now)
systemctl stop coremotiond.service; rc=$?
t_stop=$(sub "$(now)" "$t0")
ems=$(svc ExecMainStatus); emc=$(svc ExecMainCode); res=$(svc Result)
if [ "$rc" -eq 0 ] && [ "$ems" = 0 ] && [ "$res" = success ] && awk -v t="$t_stop" 'BEGIN { exit !(t < 10) }'; then
    pass stop "systemctl stop in $t_stop s: ExecMainStatus=$ems ExecMainCode=$emc Result=$res; socket $(systemctl is-active coremotiond.socket)"
else
    fail stop "systemctl stop exit $rc in $t_stop s: ExecMainStatus=$ems ExecMainCode=$emc Result=$res"; journal_tail
fi

# --- kill-9-restart: a streaming client keeps getting data after SIGKILL and the restart; history sound.
systemctl start coremotiond.service; wait_for 60 active
"$cm" permissions grant coremotion > "$w/grant-root.out" 2>&1 || info "root: permissions grant coremotion: $(tail -n 1 "$w/grant-root.out")"
"$cm" service record-accelerometer 3600 > "$w/rec.out" 2>&1 || info "root: service record-accelerometer: $(tail -n 2 "$w/rec.out" | tr '\n' ' ')"
sleep 8
n1=$(recorded)
pty_stream env COREMOTION_DEVICE=service "$cm" demo --device service --duration 45 > "$w/stream.log" &
spid=$!
wait_for 60 grep -q 'acc\[g\] *-0.25' "$w/stream.log"; ok_stream=$?
old=$(svc MainPID); t_kill=$(now)
kill -9 "$old"
# New accelerometer values (0, 8192, −16384) → (+0.00, −0.50, +1.00) g: only a stream that reconnected
# to the restarted daemon can show them.
bus=$(cat /run/cmvm-i2c-bus 2>/dev/null)
[ -n "$bus" ] && i2cset -f -y "$bus" 0x68 0x12 0x00 0x00 0x00 0x20 0x00 0xc0 i
wait_for 60 sh -c "[ \"\$(systemctl show -p MainPID --value coremotiond.service)\" != $old ] && [ \"\$(systemctl show -p ActiveState --value coremotiond.service)\" = active ]"
t_active=$(now); new=$(svc MainPID)
wait_for 60 grep -q 'acc\[g\] *+0.00 *-0.50 *+1.00' "$w/stream.log"
t_resume=$(awk '/acc\[g\] *\+0.00 *-0.50 *\+1.00/ { print $1; exit }' "$w/stream.log")
wait "$spid"
total=$(sed -n 's/^[0-9.]* \([0-9]*\) accelerometer.*/\1/p' "$w/stream.log" | tail -n 1)
nre=$(svc NRestarts)
n2=$(recorded)
db=$(history_db)
ic=$( [ -n "$db" ] && sqlite3 "file:$db?mode=ro" 'PRAGMA integrity_check;' 2>&1 | head -n 3 | tr '\n' ' ')
fig="killed pid $old at $t_kill s; pid $new active at $t_active s (+$(sub "$t_active" "$t_kill") s, NRestarts=$nre); the client's stream showed the new values at ${t_resume:-never} s (gap $( [ -n "$t_resume" ] && sub "$t_resume" "$t_kill") s), $total accelerometer samples in 45 s; recorded samples $n1 before, $n2 after; integrity_check ${ic:-no database}"
if [ "$ok_stream" -eq 0 ] && [ -n "$t_resume" ] && [ "$new" != "$old" ] && [ "${ic% }" = ok ] && [ -n "$n2" ] && [ "${n2:-0}" -ge "${n1:-0}" ]; then
    pass kill-9-restart "$fig"
else
    fail kill-9-restart "stream before kill: $([ "$ok_stream" -eq 0 ] && echo yes || echo no); $fig"
    tail -n 3 "$w/stream.log" | sed 's/^/INFO   stream: /'; journal_tail
fi

# --- watchdog: no timeout so far; then SIGSTOP → systemd's watchdog kills and restarts it.
wd=$(journalctl -b --no-pager -u coremotiond.service 2>/dev/null | grep -ci 'watchdog')
pass watchdog "no watchdog message in the journal during the run ($wd lines); WatchdogUSec=$(svc WatchdogUSec)"
if [ "$watchdog" = 1 ]; then
    old=$(svc MainPID); t0=$(now)
    kill -STOP "$old"
    wait_for 120 sh -c "[ \"\$(systemctl show -p MainPID --value coremotiond.service)\" != $old ] && [ \"\$(systemctl show -p ActiveState --value coremotiond.service)\" = active ]"; rc=$?
    t_back=$(sub "$(now)" "$t0")
    msg=$(journalctl -b --no-pager -o short-monotonic -u coremotiond.service 2>/dev/null | grep -i 'watchdog' | tail -n 2 | tr '\n' '|')
    if [ "$rc" -eq 0 ]; then
        pass watchdog-stop "SIGSTOP at $t0 s; new pid $(svc MainPID) active $t_back s later; journal: $msg"
    else
        fail watchdog-stop "SIGSTOP: no new active daemon within 120 s; journal: $msg"; journal_tail
    fi
fi

# --- two-users: each user's decisions are their own; the machine's history needs coremotion-history.
t0=$(now)
as_user bob "$cm" service status > "$w/bob-nogroup.out" 2>&1; rc_nogroup=$?
usermod -aG coremotion alice && usermod -aG coremotion bob
as_user alice "$cm" permissions grant coremotion > "$w/alice-grant.out" 2>&1; rc_ag=$?
as_user alice "$cm" permissions list --json > "$w/alice-list.json" 2>&1
as_user bob "$cm" permissions list --json > "$w/bob-list.json" 2>&1; rc_bl=$?
as_user bob "$cm" permissions grant othertool --user 1001 > "$w/bob-grant-alice.out" 2>&1; rc_bga=$?
as_user bob "$cm" permissions list --user 1001 > "$w/bob-list-alice.out" 2>&1; rc_bla=$?
"$cm" permissions list --user 1001 --json > "$w/root-list-alice.json" 2>&1; rc_rla=$?
root_sees=$(grep -c '"coremotion"' "$w/root-list-alice.json")
as_user alice "$cm" service record-accelerometer 5 > "$w/alice-hist1.out" 2>&1; rc_h1=$?
usermod -aG coremotion-history alice
as_user alice "$cm" service record-accelerometer 5 > "$w/alice-hist2.out" 2>&1; rc_h2=$?
alice_has=$(grep -c '"coremotion"' "$w/alice-list.json"); bob_has=$(grep -c '"coremotion"' "$w/bob-list.json")
r() { { grep -m 1 -i 'error' "$1" || tail -n 1 "$1"; } | cut -c1-220; }
fig="bob outside the group: exit $rc_nogroup ($(r "$w/bob-nogroup.out")); alice grant: exit $rc_ag; alice's list names coremotion: $alice_has, bob's: $bob_has (exit $rc_bl); bob grant --user 1001: exit $rc_bga ($(r "$w/bob-grant-alice.out")); bob list --user 1001: exit $rc_bla ($(r "$w/bob-list-alice.out")); root list --user 1001: exit $rc_rla, names coremotion: $root_sees; alice history without coremotion-history: exit $rc_h1 ($(r "$w/alice-hist1.out")); with it: exit $rc_h2"
if [ "$rc_nogroup" -ne 0 ] && [ "$rc_ag" -eq 0 ] && [ "$alice_has" -ge 1 ] && [ "$bob_has" -eq 0 ] && [ "$rc_bl" -eq 0 ] \
   && [ "$rc_bga" -ne 0 ] && [ "$rc_bla" -ne 0 ] && [ "$rc_rla" -eq 0 ] && [ "$root_sees" -ge 1 ] && [ "$rc_h1" -ne 0 ] && [ "$rc_h2" -eq 0 ]; then
    pass two-users "$fig"
else
    fail two-users "$fig"
    for f in alice-grant.out alice-list.json bob-list.json alice-hist2.out; do tail -n 3 "$w/$f" | sed "s/^/INFO   $f: /"; done
fi

# --- user-instance: alice's own socket and daemon under her user manager (linger).
t0=$(now)
loginctl enable-linger alice
wait_for 60 test -S /run/user/1001/systemd/private; rc_um=$?
if [ -n "$debfile" ]; then
    # The package's user units are not enabled: each user opts in (tools/package/README.md).
    how_user="systemctl --user enable --now coremotiond.socket"
    as_alice_user systemctl --user enable --now coremotiond.socket > "$w/user-install.out" 2>&1; rc_ui=$?
else
    how_user="coremotion service install --user"
    as_alice_user "$cm" service install --user > "$w/user-install.out" 2>&1; rc_ui=$?
fi
sed 's/^/INFO   user install: /' "$w/user-install.out" | head -n 8
us=$(as_alice_user systemctl --user is-active coremotiond.socket 2>&1)
as_alice_user timeout 120 "$cm" service status > "$w/user-status.out" 2>&1; rc_us=$?
usv=$(as_alice_user systemctl --user is-active coremotiond.service 2>&1)
uv=$(as_alice_user systemd-analyze --user verify "$user_units/coremotiond.service" 2>&1 | tr '\n' '|')
sock=$(stat -c '%A %U' /run/user/1001/coremotion/coremotiond.sock 2>&1)
first=$(head -n 1 "$w/user-status.out")
if [ "$rc_um" -eq 0 ] && [ "$rc_ui" -eq 0 ] && [ "$us" = active ] && [ "$rc_us" -eq 0 ] && [ "$usv" = active ] && grep -q 'user instance' <<<"$first"; then
    pass user-instance "user manager up; $how_user: exit 0; socket $us ($sock); service $usv; status: $first; verify --user: ${uv:-clean}"
else
    fail user-instance "user manager $rc_um; $how_user: exit $rc_ui; socket '$us' ($sock); status exit $rc_us '$first'; service '$usv'; verify --user: ${uv:-clean}"
    as_alice_user journalctl --user -b --no-pager -u coremotiond.service 2>/dev/null | tail -n 6 | sed 's/^/INFO   user journal: /'
    journalctl -b --no-pager _UID=1001 2>/dev/null | tail -n 6 | sed 's/^/INFO   journal uid 1001: /'
fi

if [ -n "$debfile" ]; then
    # --- package-remove: `apt-get remove` stops the socket and the daemon (which flushes the history on
    # SIGTERM), removes the files, keeps /var/lib/coremotion and the coremotion user.
    as_alice_user systemctl --user disable --now coremotiond.socket coremotiond.service > /dev/null 2>&1
    n_before=$(recorded)
    t0=$(now)
    DEBIAN_FRONTEND=noninteractive apt-get remove -y -q coremotion > "$w/remove.out" 2>&1; rc=$?
    t_rm=$(sub "$(now)" "$t0")
    db=$(history_db)
    ic=$( [ -n "$db" ] && sqlite3 "file:$db?mode=ro" 'PRAGMA integrity_check;' 2>&1 | head -n 3 | tr '\n' ' ')
    left=; for f in /usr/bin/coremotion /usr/bin/coremotiond /usr/lib/coremotion $units/coremotiond.service $units/coremotiond.socket /usr/lib/udev/rules.d/60-coremotion-iio.rules; do [ -e "$f" ] && left="$left $f"; done
    procs=$(pgrep -u coremotion -x coremotiond | tr '\n' ' ')
    sock=$(systemctl is-active coremotiond.socket 2>&1); st=$(systemctl is-active coremotiond.service 2>&1)
    dst=$(dpkg-query -W -f='${db:Status-Abbrev}' coremotion 2>&1 | tr -d ' ')
    fig="apt-get remove: exit $rc in $t_rm s; dpkg status '$dst'; socket $sock, service $st, coremotion processes: ${procs:-none}; files left:${left:- none}; history $db ($n_before samples recorded) integrity_check ${ic:-no database}; user: $(getent passwd coremotion | cut -d: -f1,3)"
    if [ "$rc" -eq 0 ] && [ "$dst" = rc ] && [ "$sock" != active ] && [ "$st" != active ] && [ -z "$procs" ] && [ -z "$left" ] \
       && [ "${ic% }" = ok ] && getent passwd coremotion > /dev/null; then
        pass package-remove "$fig"
    else
        fail package-remove "$fig"; tail -n 5 "$w/remove.out" | sed 's/^/INFO   remove: /'
    fi
    # --- package-purge: `apt-get purge` also deletes the history and /etc/coremotion; the user stays.
    t0=$(now)
    DEBIAN_FRONTEND=noninteractive apt-get purge -y -q coremotion > "$w/purge.out" 2>&1; rc=$?
    t_pg=$(sub "$(now)" "$t0")
    dst=$(dpkg-query -W -f='${db:Status-Abbrev}' coremotion 2>/dev/null | tr -d ' ')
    left=; for f in /var/lib/coremotion /etc/coremotion /etc/systemd/system/sockets.target.wants/coremotiond.socket /etc/systemd/system/multi-user.target.wants/coremotiond.service; do [ -e "$f" ] && left="$left $f"; done
    fig="apt-get purge: exit $rc in $t_pg s; dpkg status '${dst:-unknown}'; left:${left:- none}; user kept: $(getent passwd coremotion | cut -d: -f1,3)"
    if [ "$rc" -eq 0 ] && [ -z "$left" ] && { [ -z "$dst" ] || [ "$dst" = un ] || [ "$dst" = pn ]; }; then
        pass package-purge "$fig"
    else
        fail package-purge "$fig"; tail -n 5 "$w/purge.out" | sed 's/^/INFO   purge: /'
    fi
    # --- swiftpm-install: the other documented way (docs/service-lifecycle.md), on the machine the package
    # left; the second boot then starts this installation.
    t0=$(now)
    install -m 0755 "$B/coremotion" "$B/coremotiond" /usr/local/bin/ && cp -r "$B"/*.resources /usr/local/bin/ \
        && /usr/local/bin/coremotion service install > "$w/install2.out" 2>&1; rc=$?
    cm=/usr/local/bin/coremotion
    cp /project/systemd/udev/60-coremotion-iio.rules /etc/udev/rules.d/ && udevadm control --reload \
        && udevadm trigger --subsystem-match=iio --action=add && udevadm settle -t 20
    wait_for 60 active
    "$cm" permissions grant coremotion > /dev/null 2>&1
    "$cm" service record-accelerometer 3600 > /dev/null 2>&1
    sleep 5
    n=$(recorded)
    fig="install + cp *.resources + coremotion service install: exit $rc in $(sub "$(now)" "$t0") s; service $(svc ActiveState) as $(ps -o user= -p "$(svc MainPID)" 2>/dev/null | tr -d ' '); recorded samples ${n:-?}"
    if [ "$rc" -eq 0 ] && active && [ "${n:-0}" -gt 0 ]; then pass swiftpm-install "$fig"; else fail swiftpm-install "$fig"; tail -n 5 "$w/install2.out" | sed 's/^/INFO   install: /'; journal_tail; fi
fi

# For the second boot: the history as it stands.
recorded > /var/lib/cmvm-recorded
info "recorded samples before poweroff: $(cat /var/lib/cmvm-recorded)"
info "journal of the run, warnings and worse (coremotiond): $(journalctl -b --no-pager -p warning -u coremotiond.service -u coremotiond.socket 2>/dev/null | grep -vc '^--') lines"
journalctl -b --no-pager -p warning -u coremotiond.service -u coremotiond.socket 2>/dev/null | grep -v '^--' | tail -n 10 | sed 's/^/INFO   /'
echo "$passed passed, $failed failed"
exit 0
