#!/usr/bin/env bash
# Builds the Debian package of swift-core-motion: OUT_DIR/coremotion_VERSION_ARCH.deb.
#
#   tools/package/build-deb.sh OUT_DIR
#   tools/package/build-deb.sh --binaries DIR OUT_DIR     a test package of binaries already built
#
# The release build (static Swift runtime) goes to .build-release, so that the debug build in .build stays
# as it is; the version is the one the built tool prints (`coremotion --version`, CoreMotionVersion in
# Sources/MotionSamples). What goes where and what the maintainer scripts do: tools/package/README.md.
#
# --binaries DIR packages coremotion, coremotiond and their resource bundles from DIR as they are (CI: the
# debug build, in seconds instead of a 12-15 minute release build) as version VERSION~test, which sorts
# before the release. Such binaries load the Swift runtime from the toolchain they were built with (their
# RUNPATH, e.g. /opt/swift/usr/lib/swift/linux), which no Debian package provides: the package installs only
# where that toolchain is (the systemd VM shares the host's /opt/swift). Everything else (paths, units,
# users, udev rule, maintainer scripts) is the release package's, which is what the test proves.
#
# Environment:
#   COREMOTION_MAINTAINER   Maintainer: field, "Name <mail>" (default: git config user.name and user.email)
#   COREMOTION_SKIP_BUILD=1 package what .build-release already holds (no swift build)
#   COREMOTION_NO_STRIP=1   keep the binaries' symbol tables (bigger package, symbolicated crash logs)
set -euo pipefail
umask 022
export LC_ALL=C

prebuilt=
if [ "${1:-}" = --binaries ]; then
    [ $# -ge 2 ] && [ -d "$2" ] || { echo "build-deb: --binaries needs a folder holding coremotion and coremotiond" >&2; exit 64; }
    prebuilt=$(cd "$2" && pwd)
    shift 2
fi
if [ $# -ne 1 ] || [ -z "$1" ] || [ "${1#-}" != "$1" ]; then
    echo "usage: $0 [--binaries DIR] OUT_DIR" >&2
    exit 64
fi

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
mkdir -p "$1"
out=$(cd "$1" && pwd)

for tool in swift dpkg dpkg-deb dpkg-shlibdeps install gzip md5sum; do
    command -v "$tool" >/dev/null || { echo "build-deb: '$tool' is missing (apt-get install dpkg-dev)" >&2; exit 69; }
done

cd "$root"
scratch=.build-release
# -z now: every symbol bound at start-up, so that the whole GOT is read-only (full RELRO); only the links change.
build=(swift build -c release --static-swift-stdlib --scratch-path "$scratch" -Xlinker -z -Xlinker now)

# 1. The release build, niced: the machine is shared.
if [ -n "$prebuilt" ]; then
    :
elif [ "${COREMOTION_SKIP_BUILD:-0}" != 1 ]; then
    started=$(date +%s)
    # `--product` takes one product per invocation; the second reuses the first's modules.
    for product in coremotion coremotiond; do
        echo "build-deb: swift build -c release --static-swift-stdlib --product $product" >&2
        nice -n 10 "${build[@]}" --product "$product"
    done
    echo "build-deb: release build took $(( $(date +%s) - started )) s" >&2
fi
if [ -n "$prebuilt" ]; then bin=$prebuilt; else bin=$("${build[@]}" --show-bin-path); fi
for product in coremotion coremotiond; do
    [ -x "$bin/$product" ] || { echo "build-deb: $bin/$product is missing: build first" >&2; exit 66; }
done

# 2. The version: the one both executables print.
version=$("$bin/coremotion" --version)
daemon_version=$("$bin/coremotiond" --version)
if ! printf '%s\n' "$version" | grep -Eq '^[0-9]+\.[0-9]+\.[0-9]+$'; then
    echo "build-deb: coremotion --version printed '$version', not MAJOR.MINOR.PATCH" >&2
    exit 65
fi
if [ "$version" != "$daemon_version" ]; then
    echo "build-deb: coremotion is $version but coremotiond is $daemon_version" >&2
    exit 65
fi
# A test package sorts before the release of the same number (0.3.0~test < 0.3.0).
package_version=$version
[ -n "$prebuilt" ] && package_version="$version~test"
arch=$(dpkg --print-architecture)
# The maintainer: COREMOTION_MAINTAINER, else the Git identity of this tree, else a placeholder.
maintainer=${COREMOTION_MAINTAINER:-}
if [ -z "$maintainer" ]; then
    git_name=$(git config user.name 2>/dev/null || true)
    git_email=$(git config user.email 2>/dev/null || true)
    if [ -n "$git_name" ] && [ -n "$git_email" ]; then
        maintainer="$git_name <$git_email>"
    else
        maintainer="swift-core-motion maintainers <coremotion@invalid.example>"
    fi
fi
deb="$out/coremotion_${package_version}_${arch}.deb"
echo "build-deb: coremotion $package_version for $arch${prebuilt:+ (test package of $prebuilt)}" >&2

stage=$(mktemp -d "${TMPDIR:-/tmp}/coremotion-deb.XXXXXX")
trap 'rm -rf "$stage"' EXIT
pkg="$stage/root"
mkdir -p "$pkg/DEBIAN"

# 3. The executables, with their SwiftPM resource bundles beside them: `Bundle.module` looks for
# NAME.resources in the folder of the running executable (/proc/self/exe, symbolic links resolved), so the
# binaries live in /usr/lib/coremotion and /usr/bin holds links to them.
libdir="$pkg/usr/lib/coremotion"
install -d "$libdir" "$pkg/usr/bin"
for product in coremotion coremotiond; do
    install -m 0755 "$bin/$product" "$libdir/$product"
    if [ "${COREMOTION_NO_STRIP:-0}" != 1 ]; then
        strip --strip-unneeded --remove-section=.comment --remove-section=.note "$libdir/$product"
    fi
    ln -s "../lib/coremotion/$product" "$pkg/usr/bin/$product"
done
bundles=0
for bundle in "$bin"/*.resources; do
    [ -d "$bundle" ] || continue
    name=$(basename "$bundle")
    install -d "$libdir/$name"
    cp -R --no-preserve=mode,ownership "$bundle/." "$libdir/$name/"
    bundles=$((bundles + 1))
done
[ "$bundles" -gt 0 ] || { echo "build-deb: no resource bundles beside the binaries in $bin" >&2; exit 66; }

# 4. The systemd units as the generator writes them for /usr/bin/coremotiond, from the tool just built.
# `service install --print` lists every file under a "==> PATH <==" header.
split_units() {  # $1 scope flag ("" or --user), $2 unit folder
    local listing
    listing=$("$bin/coremotion" service install --print --executable /usr/bin/coremotiond $1)
    printf '%s\n' "$listing" | awk -v units="$2" -v sysusers="$pkg/usr/lib/sysusers.d" '
        /^==> .* <==$/ {
            path = $2; n = split(path, parts, "/"); name = parts[n]
            if (name ~ /\.(service|socket)$/) target = units "/" name
            else if (path ~ /sysusers\.d\//) target = sysusers "/" name
            else { print "build-deb: unexpected file in the listing: " path > "/dev/stderr"; exit 1 }
            if (file != "") close(file)
            file = target; pending = 0; next
        }
        file != "" {
            # The listing separates files with a blank line: blank lines at the end of a file are dropped.
            if ($0 == "") { pending++; next }
            for (; pending > 0; pending--) print "" > file
            print > file
        }'
}
install -d "$pkg/usr/lib/systemd/system" "$pkg/usr/lib/systemd/user" "$pkg/usr/lib/sysusers.d"
split_units "" "$pkg/usr/lib/systemd/system"
split_units --user "$pkg/usr/lib/systemd/user"
for unit in system/coremotiond.service system/coremotiond.socket user/coremotiond.service user/coremotiond.socket; do
    [ -s "$pkg/usr/lib/systemd/$unit" ] || { echo "build-deb: the generator wrote no $unit" >&2; exit 70; }
done
[ -s "$pkg/usr/lib/sysusers.d/coremotion.conf" ] || cp systemd/sysusers.d/coremotion.conf "$pkg/usr/lib/sysusers.d/"
grep -q '^ExecStart=/usr/bin/coremotiond --system$' "$pkg/usr/lib/systemd/system/coremotiond.service" \
    || { echo "build-deb: the system unit does not start /usr/bin/coremotiond" >&2; exit 70; }
# The generated copies in systemd/ differ only in the path: anything else means the checked-in copies are stale.
for unit in system/coremotiond.service system/coremotiond.socket user/coremotiond.service user/coremotiond.socket sysusers.d/coremotion.conf; do
    case $unit in sysusers.d/*) packaged="$pkg/usr/lib/$unit" ;; *) packaged="$pkg/usr/lib/systemd/$unit" ;; esac
    if ! sed 's|/usr/local/bin/coremotiond|/usr/bin/coremotiond|g' "systemd/$unit" | cmp -s - "$packaged"; then
        echo "build-deb: warning: systemd/$unit differs from the generator's (COREMOTION_UPDATE_UNITS=1 swift test --filter SystemdUnitsTests)" >&2
    fi
done
chmod 0644 "$pkg"/usr/lib/systemd/*/* "$pkg"/usr/lib/sysusers.d/*

# 5. The state folder, the udev rule for IIO sensors.
install -d "$pkg/usr/lib/tmpfiles.d" "$pkg/usr/lib/udev/rules.d"
cat > "$pkg/usr/lib/tmpfiles.d/coremotion.conf" <<'EOF'
# swift-core-motion: the system coremotiond's history and permissions (StateDirectory=coremotion),
# the daemon's alone. The coremotion user comes from /usr/lib/sysusers.d/coremotion.conf.
d /var/lib/coremotion 0700 coremotion coremotion -
EOF
install -m 0644 systemd/udev/60-coremotion-iio.rules "$pkg/usr/lib/udev/rules.d/"

# 6. Documentation: README, the upstream changelog, the Debian changelog, the copyright file.
doc="$pkg/usr/share/doc/coremotion"
install -d "$doc"
install -m 0644 README.md "$doc/README.md"
install -m 0644 tools/package/README.md "$doc/README.package.md"
[ -f CHANGELOG.md ] && gzip -9n < CHANGELOG.md > "$doc/NEWS.md.gz" && chmod 0644 "$doc/NEWS.md.gz"
date_rfc=$(date -R -u -d "@${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}")
{
    printf 'coremotion (%s) unstable; urgency=medium\n\n' "$package_version"
    printf '  * Release %s of swift-core-motion: see NEWS.md.gz.\n\n' "$version"
    printf ' -- %s  %s\n' "$maintainer" "$date_rfc"
} | gzip -9n > "$doc/changelog.gz"
{
    echo "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"
    echo "Upstream-Name: swift-core-motion"
    echo
    echo "Files: *"
    echo "Copyright: swift-core-motion contributors"
    echo "License: Apache-2.0"
    echo "Comment: The binaries link statically the Swift runtime and Foundation (Apache-2.0 with Runtime"
    echo " Library Exception, swift.org), ICU's data and code inside Foundation (Unicode licence), and the"
    echo " SwiftPM dependencies listed in the source tree's Package.swift (Apache-2.0 or MIT). The World"
    echo " Magnetic Model coefficients (WMM2025.COF) are a work of the U.S. Government (NOAA NCEI):"
    echo " public domain."
    echo
    echo "License: Apache-2.0"
    echo " Licensed under the Apache License, Version 2.0 (the \"License\"); you may not use"
    echo " this file except in compliance with the License. You may obtain a copy of the"
    echo " License at http://www.apache.org/licenses/LICENSE-2.0"
    echo " ."
    echo " Unless required by applicable law or agreed to in writing, software distributed"
    echo " under the License is distributed on an \"AS IS\" BASIS, WITHOUT WARRANTIES OR"
    echo " CONDITIONS OF ANY KIND, either express or implied. See the License for the"
    echo " specific language governing permissions and limitations under the License."
    echo " ."
    echo " On Debian systems, the complete text of the Apache License, Version 2.0 can be"
    echo " found in /usr/share/common-licenses/Apache-2.0 (the project's LICENSE file)."
} > "$doc/copyright"
chmod 0644 "$doc"/*

# Manual pages from the executables' own help (what `--help` and `help SUBCOMMAND` print), as
# preformatted text: backslashes escaped, lines that would read as roff requests guarded.
roff_escape() { sed -e 's/\\/\\e/g' -e "s/^\([.']\)/\\\\\&\1/"; }
man_page() {  # $1 executable
    local name=$1 help overview subcommand
    help=$(COLUMNS=80 "$bin/$name" --help)
    overview=$(printf '%s\n' "$help" | awk 'NR == 1 { sub(/^OVERVIEW: /, "") } /^$/ { exit } { printf "%s%s", sep, $0; sep = " " }')
    printf '.TH %s 1 "" "%s %s" "User Commands"\n' "$(printf '%s' "$name" | tr a-z A-Z)" "$name" "$version"
    printf '.SH NAME\n%s \\- %s\n' "$name" "$(printf '%s\n' "$overview" | sed 's/\.$//' | roff_escape)"
    printf '.SH DESCRIPTION\n.nf\n'
    printf '%s\n' "$help" | roff_escape
    printf '.fi\n'
    for subcommand in $(printf '%s\n' "$help" | awk '/^SUBCOMMANDS:/ { on = 1; next } on && /^  [a-z][a-z0-9-]* / { print $1 }'); do
        printf '.SS "%s %s"\n.nf\n' "$name" "$subcommand"
        COLUMNS=80 "$bin/$name" help "$subcommand" | roff_escape
        printf '.fi\n'
    done
    printf '.SH SEE ALSO\n/usr/share/doc/coremotion/README.md, /usr/share/doc/coremotion/README.package.md\n'
}
install -d "$pkg/usr/share/man/man1"
for product in coremotion coremotiond; do
    man_page "$product" | gzip -9n > "$pkg/usr/share/man/man1/$product.1.gz"
done
chmod 0644 "$pkg"/usr/share/man/man1/*

# Shell completions, generated by the argument parser from the executables themselves (bash-completion,
# zsh and fish load them from these folders without any set-up).
install -d "$pkg/usr/share/bash-completion/completions" "$pkg/usr/share/zsh/vendor-completions" \
    "$pkg/usr/share/fish/vendor_completions.d"
for product in coremotion coremotiond; do
    "$bin/$product" --generate-completion-script bash > "$pkg/usr/share/bash-completion/completions/$product"
    "$bin/$product" --generate-completion-script zsh > "$pkg/usr/share/zsh/vendor-completions/_$product"
    "$bin/$product" --generate-completion-script fish > "$pkg/usr/share/fish/vendor_completions.d/$product.fish"
done
chmod 0644 "$pkg"/usr/share/bash-completion/completions/* "$pkg"/usr/share/zsh/vendor-completions/* \
    "$pkg"/usr/share/fish/vendor_completions.d/*

# What lintian reports that is intended (tools/package/README.md, "Checking a package").
install -d "$pkg/usr/share/lintian/overrides"
cat > "$pkg/usr/share/lintian/overrides/coremotion" <<'EOF'
# The maintainer scripts use deb-systemd-helper and deb-systemd-invoke; plain systemctl is their
# fallback on systems without init-system-helpers.
coremotion: maintainer-script-calls-systemctl
# SwiftPM resource bundles, read at run time beside the executables (Bundle.module): the page that
# `coremotion view` serves, and the notes that travel with the bundled data.
coremotion: package-contains-documentation-outside-usr-share-doc [usr/lib/coremotion/*.resources/*]
EOF
chmod 0644 "$pkg/usr/share/lintian/overrides/coremotion"

# 7. Control files.
# What the binaries load: dpkg-shlibdeps reads their NEEDED entries and the libraries' shlibs/symbols files.
shlibs_dir="$stage/shlibs"
mkdir -p "$shlibs_dir/debian"
: > "$shlibs_dir/debian/control"
# A test package's Swift runtime belongs to no package: dpkg-shlibdeps skips it (--ignore-missing-info).
shlibdeps_flags=()
[ -n "$prebuilt" ] && shlibdeps_flags=(--ignore-missing-info)
depends=$(cd "$shlibs_dir" && dpkg-shlibdeps ${shlibdeps_flags[@]+"${shlibdeps_flags[@]}"} -O "$libdir/coremotion" "$libdir/coremotiond" 2>/dev/null \
    | sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || { echo "build-deb: dpkg-shlibdeps found no dependencies" >&2; exit 70; }
installed_size=$(du -sk --apparent-size --exclude=DEBIAN "$pkg" | cut -f1)

cat > "$pkg/DEBIAN/control" <<EOF
Package: coremotion
Version: $package_version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $installed_size
Depends: $depends
Recommends: systemd
Suggests: systemd-sysv
Section: utils
Priority: optional
Description: Core Motion for Linux: motion sensors, fusion, pedometer, activity${prebuilt:+ (test build)}
 Apple's Core Motion rebuilt for Linux: the coremotiond system service owns
 the machine's motion sensors (Linux IIO), runs sensor fusion, the pedometer
 and activity classification once for every process, and keeps their history
 in /var/lib/coremotion. Clients reach it over a Unix socket
 (/run/coremotion/coremotiond.sock, group coremotion).
 .
 The coremotion tool plays, records, simulates, fuses and evaluates motion
 recordings, shows live motion in a browser, and inspects the service.
 .
 The service is socket-activated (coremotiond.socket) and runs as its own
 unprivileged user; a udev rule gives it the IIO sensors.
EOF
install -m 0755 "$here/maintainer/postinst" "$here/maintainer/prerm" "$here/maintainer/postrm" "$pkg/DEBIAN/"
(cd "$pkg" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z | xargs -0 md5sum) > "$pkg/DEBIAN/md5sums"
chmod 0644 "$pkg/DEBIAN/control" "$pkg/DEBIAN/md5sums"

# 8. The archive (files owned by root whoever builds it).
# A test package is compressed fast (it never leaves the machine).
compression=(-Zxz)
[ -n "$prebuilt" ] && compression=(-Zgzip -z1)
dpkg-deb --root-owner-group "${compression[@]}" --build "$pkg" "$deb" >&2
echo "build-deb: $deb ($(du -k "$deb" | cut -f1) KiB, installed $installed_size KiB)" >&2
echo "$deb"
