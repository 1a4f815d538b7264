#!/usr/bin/env bash
# Builds surveyd and surveyctl in release mode and installs them under a prefix, with the systemd
# units (doc/systemd), shell completions for bash, zsh and fish, and man pages generated from the
# argument parsers (swift-argument-parser's generate-manual plugin).
#
#   doc/install.sh                                   # /usr/local, units in /etc/systemd/system
#   doc/install.sh --prefix /opt/surveyd --destdir /tmp/pkg   # stage a package
#
# Options:
#   --prefix DIR       where bin/ and share/ go (default /usr/local)
#   --destdir DIR      prepended to every installed path, for packaging (default none)
#   --unit-dir DIR     where the systemd units go (default /etc/systemd/system)
#   --binaries DIR     install the binaries already built in DIR instead of building them
#   --no-man           skip the man pages (generating them builds the tools once more, minutes)
# The units' ExecStart lines are rewritten to the installed surveyd. Nothing is started or
# enabled: see doc/operations.md ("Installing", "systemd") for the user, the files and the commands.
set -euo pipefail
cd "$(dirname "$0")/.."

prefix=/usr/local
destdir=""
unit_dir=/etc/systemd/system
binaries=""
man=1
while [ $# -gt 0 ]; do
    case "$1" in
        --prefix) prefix="${2:?--prefix needs a directory}"; shift 2 ;;
        --destdir) destdir="${2:?--destdir needs a directory}"; shift 2 ;;
        --unit-dir) unit_dir="${2:?--unit-dir needs a directory}"; shift 2 ;;
        --binaries) binaries="${2:?--binaries needs a directory}"; shift 2 ;;
        --no-man) man=0; shift ;;
        -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "install.sh: unknown option $1 (see --help)" >&2; exit 64 ;;
    esac
done
case "$prefix" in /*) ;; *) echo "install.sh: --prefix must be an absolute path, not $prefix" >&2; exit 64 ;; esac

if [ -z "$binaries" ]; then
    echo "== swift build -c release (surveyd, surveyctl)"
    swift build -c release --product surveyd
    swift build -c release --product surveyctl
    binaries=.build/release
fi
for tool in surveyd surveyctl; do
    [ -x "$binaries/$tool" ] || { echo "install.sh: $binaries/$tool is not there; build it or give --binaries DIR" >&2; exit 66; }
done

root="$destdir$prefix"
echo "== binaries -> $root/bin"
install -d "$root/bin"
install -m 0755 "$binaries/surveyd" "$binaries/surveyctl" "$root/bin/"

echo "== systemd units -> $destdir$unit_dir"
install -d "$destdir$unit_dir"
for unit in surveyd.service surveyd.socket; do
    sed "s#/usr/local/bin/surveyd#$prefix/bin/surveyd#g" "doc/systemd/$unit" > "$destdir$unit_dir/$unit"
    chmod 0644 "$destdir$unit_dir/$unit"
done

echo "== shell completions -> $root/share"
install -d "$root/share/bash-completion/completions" "$root/share/zsh/site-functions" "$root/share/fish/vendor_completions.d"
for tool in surveyd surveyctl; do
    "$binaries/$tool" --generate-completion-script bash > "$root/share/bash-completion/completions/$tool"
    "$binaries/$tool" --generate-completion-script zsh > "$root/share/zsh/site-functions/_$tool"
    "$binaries/$tool" --generate-completion-script fish > "$root/share/fish/vendor_completions.d/$tool.fish"
done

if [ "$man" = 1 ]; then
    echo "== man pages -> $root/share/man/man1"
    pages="$(mktemp -d)"
    trap 'rm -rf "$pages"' EXIT
    swift package --allow-writing-to-package-directory generate-manual --output-directory "$pages" >/dev/null
    install -d "$root/share/man/man1"
    install -m 0644 "$pages/surveyd.1" "$pages/surveyctl.1" "$root/share/man/man1/"
fi
echo "installed under $root (units in $destdir$unit_dir)"
