#!/bin/sh
# make clean-state: remove the state `make run` leaves (the database
# directory and the spool), as this user's defaults place them
# (common/paths.h), or the directories given as arguments.
#
# Refused while any process has a file open, or its working directory,
# in one of them: a backfilld holds its database open for its whole life,
# and a job's supervisor its spool files, so removing them under a live
# daemon would lose its jobs. Stop it first (Ctrl-C in make run, or
# systemctl stop backfilld).
set -u

if [ $# -eq 0 ]; then
	if [ "$(id -u)" -eq 0 ]; then
		set -- /var/lib/backfilld /var/spool/backfilld
	else
		case ${XDG_STATE_HOME:-} in
		/*) state=$XDG_STATE_HOME ;;
		*) state=$HOME/.local/state ;;
		esac
		set -- "$state/backfilld"	# the spool is inside it
	fi
fi

# users DIR: "PID (COMM)" of each process with a descriptor or its working
# directory under DIR (only the processes this user may look at: root
# sees all, which is where make run leaves /var/lib).
users() {
	for p in /proc/[0-9]*; do
		for f in "$p"/cwd "$p"/fd/*; do
			t=$(readlink "$f" 2>/dev/null) || continue
			case $t in
			"$1" | "$1"/*)
				echo "${p#/proc/} ($(cat "$p/comm" 2>/dev/null))"
				break ;;
			esac
		done
	done
}

busy=0
for d in "$@"; do
	[ -e "$d" ] || continue
	r=$(cd "$d" 2>/dev/null && pwd -P) && d=$r
	u=$(users "$d")
	if [ -n "$u" ]; then
		echo "clean-state: $d is in use, not removed (stop backfilld first):" >&2
		echo "$u" | sed 's/^/  pid /' >&2
		busy=1
	fi
done
[ $busy -eq 0 ] || exit 1
for d in "$@"; do
	if [ -e "$d" ]; then
		rm -rf -- "$d" && echo "removed $d" || exit 1
	fi
done
exit 0
