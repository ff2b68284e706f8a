#!/bin/sh
# Make sure the build's Debian packages are present. As root, install what is
# missing with apt-get; otherwise say exactly what is missing and fail.
# Usage: mk/deps.sh   (the package list is below; one place to change it)
set -u
PKGS="gcc make pkg-config zlib1g-dev libsqlite3-dev libevent-dev libyaml-dev libsystemd-dev"

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing Debian packages:$missing" >&2
	echo "deps: install them as root: apt-get install -y$missing" >&2
	exit 1
fi
echo "deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null || { echo "deps: apt-get update failed" >&2; exit 1; }
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing >/dev/null ||
	{ echo "deps: apt-get install$missing failed" >&2; exit 1; }
echo "deps: installed$missing"
