#!/usr/bin/env bash
# Builds the Debian package surveyd_<version>_<arch>.deb, which runs on a machine without the Swift
# toolchain: surveyd and surveyctl built in release mode with the Swift runtime linked statically,
# stripped, with their debug symbols in surveyd_<version>_<arch>.debug.tar.xz beside the package.
#
#   doc/build-deb.sh                      # the package and the symbols in .build-deb/
#   doc/build-deb.sh --output /srv/repo   # elsewhere
#
# Options:
#   --output DIR        where the package and the symbols go (default .build-deb)
#   --scratch-path DIR  SwiftPM's build directory for the static release build (default .build-release-static)
#   --binaries DIR      package surveyd and surveyctl already built in DIR (release, --static-swift-stdlib,
#                       --disable-local-rpath)
# The version is the product's (`surveyd --version`), the architecture this machine's
# (`dpkg --print-architecture`). The man pages come from swift-argument-parser's generate-manual
# plugin, which builds the tools in debug mode (in .build, quick where `swift build` ran before).
# Needs dpkg-dev (dpkg-shlibdeps), binutils (objcopy, strip) and xz-utils. The package's files, its
# maintainer scripts and how to install it on a fleet: doc/operations.md ("The Debian package").
set -euo pipefail
cd "$(dirname "$0")/.."

output=.build-deb
scratch=.build-release-static
binaries=""
maintainer="${DEBFULLNAME:-surveyd maintainers} <${DEBEMAIL:-surveyd@example.org}>"
while [ $# -gt 0 ]; do
    case "$1" in
        --output) output="${2:?--output needs a directory}"; shift 2 ;;
        --scratch-path) scratch="${2:?--scratch-path needs a directory}"; shift 2 ;;
        --binaries) binaries="${2:?--binaries needs a directory}"; shift 2 ;;
        -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "build-deb.sh: unknown option $1 (see --help)" >&2; exit 64 ;;
    esac
done
for tool in dpkg-deb dpkg-shlibdeps objcopy strip readelf xz gzip; do
    command -v "$tool" >/dev/null 2>&1 || { echo "build-deb.sh: $tool is missing; install dpkg-dev, binutils and xz-utils (apt-get install dpkg-dev binutils xz-utils)" >&2; exit 69; }
done

if [ -z "$binaries" ]; then
    for product in surveyd surveyctl; do
        # No $ORIGIN search path: the binaries load no library of their own.
        echo "== swift build -c release --static-swift-stdlib --disable-local-rpath --product $product"
        swift build -c release --static-swift-stdlib --disable-local-rpath --scratch-path "$scratch" --product "$product"
    done
    binaries="$scratch/release"
fi
for tool in surveyd surveyctl; do
    [ -x "$binaries/$tool" ] || { echo "build-deb.sh: $binaries/$tool is not there; build it or give --binaries DIR" >&2; exit 66; }
done

version="$("$binaries/surveyd" --version)"
arch="$(dpkg --print-architecture)"
name="surveyd_${version}_${arch}"
mkdir -p "$output"
output="$(cd "$output" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
root="$work/root"
debug="$work/debug"

echo "== binaries, stripped; debug symbols -> $output/$name.debug.tar.xz"
install -d -m 0755 "$root/usr/bin" "$debug"
for tool in surveyd surveyctl; do
    install -m 0755 "$binaries/$tool" "$root/usr/bin/$tool"
    # By build id, where gdb and systemd-coredump look (debug-file-directory/.build-id/ab/cdef….debug).
    id="$(readelf -n "$root/usr/bin/$tool" | sed -n 's/^ *Build ID: *//p')"
    if [ -n "$id" ]; then
        symbols="usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug"
    else
        symbols="usr/lib/debug/usr/bin/$tool.debug"
    fi
    install -d "$debug/$(dirname "$symbols")"
    objcopy --only-keep-debug --compress-debug-sections "$root/usr/bin/$tool" "$debug/$symbols"
    strip --strip-unneeded --remove-section=.comment --remove-section=.note "$root/usr/bin/$tool"
    objcopy --add-gnu-debuglink="$debug/$symbols" "$root/usr/bin/$tool"
    chmod 0644 "$debug/$symbols"
done
tar -C "$debug" --owner=0 --group=0 --numeric-owner -cJf "$output/$name.debug.tar.xz" usr

echo "== systemd units, sysusers.d, configuration"
install -d -m 0755 "$root/lib/systemd/system" "$root/usr/lib/sysusers.d" "$root/etc/surveyd"
for unit in surveyd.service surveyd.socket; do
    sed -e 's#/usr/local/bin/surveyd#/usr/bin/surveyd#g' \
        -e 's#^\# Install: /etc/systemd/system/surveyd.service#\# Installed by the surveyd package: /lib/systemd/system/surveyd.service#' \
        "doc/systemd/$unit" > "$root/lib/systemd/system/$unit"
    chmod 0644 "$root/lib/systemd/system/$unit"
done
install -m 0644 doc/debian/surveyd.sysusers "$root/usr/lib/sysusers.d/surveyd.conf"
install -m 0644 doc/debian/surveyd.json "$root/etc/surveyd/surveyd.json"

echo "== shell completions"
install -d -m 0755 "$root/usr/share/bash-completion/completions" "$root/usr/share/zsh/vendor-completions" "$root/usr/share/fish/vendor_completions.d"
for tool in surveyd surveyctl; do
    # bash-completion sources the file: no #! line.
    "$root/usr/bin/$tool" --generate-completion-script bash | sed '1{/^#!/d}' > "$root/usr/share/bash-completion/completions/$tool"
    "$root/usr/bin/$tool" --generate-completion-script zsh > "$root/usr/share/zsh/vendor-completions/_$tool"
    "$root/usr/bin/$tool" --generate-completion-script fish > "$root/usr/share/fish/vendor_completions.d/$tool.fish"
done

echo "== man pages (swift package generate-manual)"
install -d -m 0755 "$root/usr/share/man/man1" "$work/pages"
swift package --allow-writing-to-package-directory generate-manual --configuration debug --output-directory "$work/pages" >/dev/null
for tool in surveyd surveyctl; do
    gzip -9n < "$work/pages/$tool.1" > "$root/usr/share/man/man1/$tool.1.gz"
done

echo "== documentation"
doc="$root/usr/share/doc/surveyd"
install -d -m 0755 "$doc"
install -m 0644 doc/debian/copyright "$doc/copyright"
install -d -m 0755 "$root/usr/share/lintian/overrides"
install -m 0644 doc/debian/lintian-overrides "$root/usr/share/lintian/overrides/surveyd"
gzip -9n < README.md > "$doc/README.md.gz"
for page in operations configuration security control-api journal-format kiosk; do
    gzip -9n < "doc/$page.md" > "$doc/$page.md.gz"
done

echo "== Prometheus: alert rules and their tests, the dashboard, the kiosk's agent"
share="$root/usr/share/surveyd/prometheus"
install -d -m 0755 "$share/agent"
install -m 0644 doc/prometheus/surveyd-alerts.yml doc/prometheus/surveyd-alerts.test.yml doc/prometheus/surveyd-dashboard.json "$share/"
install -m 0644 doc/prometheus/agent/surveyd-agent.yml doc/prometheus/agent/surveyd-metrics-agent.service \
    doc/prometheus/agent/surveyd-metrics-agent.default "$share/agent/"
date="$(date -R -d "@${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}")"
printf 'surveyd (%s) unstable; urgency=medium\n\n  * Release %s: the changes are in the project'"'"'s history and doc/.\n\n -- %s  %s\n' \
    "$version" "$version" "$maintainer" "$date" | gzip -9n > "$doc/changelog.gz"
find "$root" -type f -exec chmod go-w {} +
find "$root" -type d -exec chmod 0755 {} +

echo "== control files"
install -d -m 0755 "$root/DEBIAN"
# dpkg-shlibdeps reads debian/control of a source package: a minimal one beside the tree.
install -d "$work/debian"
printf 'Source: surveyd\n\nPackage: surveyd\nArchitecture: any\n' > "$work/debian/control"
shlibs="$(cd "$work" && dpkg-shlibdeps -O -eroot/usr/bin/surveyd -eroot/usr/bin/surveyctl 2>/dev/null | sed -n 's/^shlibs:Depends=//p')"
[ -n "$shlibs" ] || { echo "build-deb.sh: dpkg-shlibdeps found no libraries for the binaries" >&2; exit 70; }
cat > "$root/DEBIAN/control" <<EOF
Package: surveyd
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $(du -sk --exclude=DEBIAN "$root" | cut -f1)
Depends: $shlibs, systemd (>= 252)
Section: admin
Priority: optional
Homepage: https://github.com/example/surveyd
Description: offline-first survey agent for Linux kiosks
 surveyd fetches questionnaires from a survey server, asks them on a kiosk's
 pages or through its control socket, journals every answer durably before
 acknowledging it, and delivers finished submissions exactly once, queueing
 them through network outages. surveyctl shows and steers it from a terminal.
 .
 The binaries carry the Swift runtime: no Swift toolchain is needed.
EOF
echo /etc/surveyd/surveyd.json > "$root/DEBIAN/conffiles"
for script in postinst prerm postrm; do
    install -m 0755 "doc/debian/$script" "$root/DEBIAN/$script"
done
(cd "$root" && find . -path ./DEBIAN -prune -o -type f -print | sed 's#^\./##' | LC_ALL=C sort | xargs md5sum) > "$root/DEBIAN/md5sums"
chmod 0644 "$root/DEBIAN/control" "$root/DEBIAN/conffiles" "$root/DEBIAN/md5sums"

dpkg-deb --root-owner-group -Zxz --build "$root" "$output/$name.deb" >/dev/null
echo "built $output/$name.deb and $output/$name.debug.tar.xz"
