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
#   --key FILE         where the sealed encryption key goes (default /etc/surveyd/surveyd-key.cred)
#   --no-key           make no key
# The units' ExecStart lines are rewritten to the installed surveyd. Unless --no-key, or --destdir
# without --key, a 32-byte key for the answers at rest is made (once: an existing FILE is kept) and
# sealed to this machine, and to its TPM2 where there is one, with `systemd-creds encrypt`; the
# service loads it with LoadCredentialEncrypted= (doc/security.md). Nothing is started or enabled:
# see doc/operations.md ("Installing", "systemd") for the user, the files and the commands.
set -euo pipefail
cd "$(dirname "$0")/.."

prefix=/usr/local
destdir=""
unit_dir=/etc/systemd/system
binaries=""
man=1
key=""
make_key=1
while [ $# -gt 0 ]; do
    case "$1" in
        --prefix) prefix="${2:?--prefix needs a directory}"; shift 2 ;;
        --destdir) destdir="${2:?--destdir needs a directory}"; shift 2 ;;
        --unit-dir) unit_dir="${2:?--unit-dir needs a directory}"; shift 2 ;;
        --binaries) binaries="${2:?--binaries needs a directory}"; shift 2 ;;
        --no-man) man=0; shift ;;
        --key) key="${2:?--key needs a file}"; shift 2 ;;
        --no-key) make_key=0; shift ;;
        -h|--help) sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
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
# A key sealed in a staging directory would be sealed to the build machine: only with --key there.
if [ "$make_key" = 1 ] && { [ -z "$destdir" ] || [ -n "$key" ]; }; then
    key="${key:-/etc/surveyd/surveyd-key.cred}"
    if [ -e "$key" ]; then
        echo "== encryption key: $key is there, kept"
    else
        echo "== encryption key -> $key"
        install -d -m 0700 "$(dirname "$key")"
        if command -v systemd-creds >/dev/null 2>&1; then
            # Sealed to this machine's credential secret, and to its TPM2 when it has one; the
            # plain key only ever goes through a pipe.
            ( umask 077; head -c 32 /dev/urandom | systemd-creds encrypt --name=surveyd-key - "$key" )
            chmod 0600 "$key"
        else
            plain="${key%.cred}"
            ( umask 077; head -c 32 /dev/urandom > "$plain" )
            echo "install.sh: systemd-creds is not here: the key $plain is NOT sealed; in surveyd.service replace LoadCredentialEncrypted=surveyd-key:$key with LoadCredential=surveyd-key:$plain (doc/security.md)" >&2
        fi
        echo "   keep an offline copy if undelivered answers must survive this machine (doc/security.md)"
    fi
fi
echo "installed under $root (units in $destdir$unit_dir)"
