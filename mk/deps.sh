#!/bin/sh
# Make sure the build's Debian packages are present. As root, install what is
# missing with apt-get; otherwise say exactly what is missing and fail.
# Usage: mk/deps.sh [--tests]   (the package lists are below; one place to
# change them). --tests adds what the tests use beyond the build, so that
# none of them is skipped for want of a tool: systemd (systemd-socket-
# activate, systemd-analyze, systemd-tmpfiles; installing it does not make
# it PID 1), man-db (man, for the pages' check), util-linux (setpriv,
# unshare), iproute2 (ip, for the test cluster's network namespaces),
# openssh-server and openssh-client (one sshd per test node, started and
# stopped by the tests themselves), openmpi-bin and mpich (Open MPI's
# mpirun and MPICH's mpiexec.hydra over blaunch; Open MPI stays the
# default mpirun), strace (counts the daemon's syncs, hostile_spool.sh),
# librsvg2-bin (rsvg-convert renders the plots to PNG, tests/replay/plots.sh)
# and libxml2-utils (xmllint checks the plots are valid XML).
# The machine's own sshd is not started by the install: a policy-rc.d that
# refuses every start is in place while apt-get runs (see below).
set -u
PKGS="gcc make pkg-config zlib1g-dev libsqlite3-dev libevent-dev libyaml-dev libsystemd-dev"
case "${1:-}" in
--tests) PKGS="$PKGS systemd man-db util-linux iproute2 openssh-server openssh-client openmpi-bin mpich strace librsvg2-bin libxml2-utils" ;;
"") ;;
*) echo "usage: mk/deps.sh [--tests]" >&2; exit 2 ;;
esac

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
# Packages such as openssh-server start their service when installed; the
# tests want the package, not a machine-wide sshd. invoke-rc.d asks
# /usr/sbin/policy-rc.d first, and exit status 101 means "action forbidden".
# Ours is put in place only when none exists, and removed afterwards.
policy=""
if [ ! -e /usr/sbin/policy-rc.d ]; then
	policy=/usr/sbin/policy-rc.d
	printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod 755 "$policy"
fi
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing >/dev/null
rc=$?
[ -n "$policy" ] && rm -f "$policy"
[ "$rc" -eq 0 ] || { echo "deps: apt-get install$missing failed" >&2; exit 1; }
echo "deps: installed$missing"
