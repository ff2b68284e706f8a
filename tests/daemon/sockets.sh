#!/bin/sh
# Clients find the daemon (bq(1), ENVIRONMENT): --socket, then
# $BACKFILLD_SOCKET, then the socket key of $BACKFILLD_CONFIG (else
# /etc/backfilld/backfilld.yaml), then /run/backfilld/backfilld.sock if it
# exists, then the per-user default; an error lists every path tried.
# Daemons of different sizes tell which one answered (bq --nodes).
#
# The system path and the per-user /tmp directory are the machine's own:
# the test runs itself again in a private mount namespace with its own
# /run and /tmp, so no real daemon is reached or disturbed. Without one,
# the tests that need it are skipped.
# A checkout or build under /tmp or /run would vanish beneath the private
# mounts, so there the namespace is not used (and its tests are skipped).
case "$BF_TOP:$BF_BUILD" in
/tmp/* | /run/* | *:/tmp/* | *:/run/*) BF_SOCKETS_NS=no ;;
esac
if [ -z "${BF_SOCKETS_NS:-}" ] && unshare -m --propagation private true 2>/dev/null; then
	exec unshare -m --propagation private env BF_SOCKETS_NS=1 sh "$0"
fi
NS=0
if [ "${BF_SOCKETS_NS:-}" = 1 ] && mount -t tmpfs -o mode=1777 tmpfs /tmp &&
	mount -t tmpfs -o mode=755 tmpfs /run; then
	NS=1
fi
. "$BF_TOP/tests/lib.sh"
AS_NOBODY="setpriv --reuid=nobody --regid=nogroup --clear-groups"
chmod 755 "$TMP"
cd / || exit 1	# no default may depend on the current directory
PIDS=
trap 'for p in $PIDS; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; cleanup_daemon' EXIT

# size CMD...: the node count of the daemon that "CMD --nodes" reaches,
# or "none"; its standard error in $TMP/err.
size() {
	s=$("$@" --nodes 2>"$TMP/err" | sed -n 's/^\([0-9]*\) nodes:.*/\1/p')
	echo "${s:-none}"
}
# until_size N CMD...: wait (10 s at most) until CMD reaches a daemon of N nodes.
until_size() {
	want=$1; shift; i=0
	while [ $i -lt 100 ]; do
		[ "$(size "$@")" = "$want" ] && return 0
		sleep 0.1; i=$((i + 1))
	done
	return 1
}
if [ "${BF_SOCKETS_NS:-}" = no ]; then
	WHY="checkout or build under /tmp or /run, which the private mounts would hide"
else
	WHY="no private mount namespace (unshare -m)"
fi
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $WHY"; }
# has FILE TEXT: the file holds TEXT, as it is (no pattern).
has() { grep -qF -- "$2" "$1"; }

NOENT="No such file or directory"
HINT="(is the daemon running? set BACKFILLD_SOCKET or --socket)"
: >"$TMP/empty.yaml"		# valid, no socket key
printf 'socket: %s\n' "$TMP/b.sock" >"$TMP/b.yaml"
printf 'socket: %s\npolicy: easyy\n' "$TMP/b.sock" >"$TMP/b-bad-policy.yaml"
printf 'nodes: [1, 2\nsocket: %s\n' "$TMP/b.sock" >"$TMP/b-syntax.yaml"
printf 'socket: %s\n' "$TMP/gone.sock" >"$TMP/gone.yaml"

# A: 2 nodes on $BACKFILLD_SOCKET (tests/lib.sh); B: 5 nodes elsewhere.
start_daemon --nodes 2
ok $? "daemon A (2 nodes) on \$BACKFILLD_SOCKET"
"$BFD" --foreground --socket "$TMP/b.sock" --db "$TMP/b.db" --spool "$TMP/b.spool" --nodes 5 \
	>"$TMP/b.log" 2>&1 &
BPID=$!; PIDS="$PIDS $BPID"
until_size 5 "$BQ" --socket "$TMP/b.sock"
ok $? "daemon B (5 nodes) on another socket"

# ---- precedence ----
[ "$(size "$BQ" --socket "$TMP/b.sock")" = 5 ]
ok $? "--socket wins over \$BACKFILLD_SOCKET"
[ "$(size env BACKFILLD_CONFIG="$TMP/b.yaml" "$BQ")" = 2 ]
ok $? "\$BACKFILLD_SOCKET wins over the configuration file's socket key"
[ "$(size env -u BACKFILLD_SOCKET BACKFILLD_CONFIG="$TMP/b.yaml" "$BQ")" = 5 ] && [ ! -s "$TMP/err" ]
ok $? "without either, the socket key of \$BACKFILLD_CONFIG, silently"
env BACKFILLD_SOCKET="$TMP/none.sock" BACKFILLD_CONFIG="$TMP/b.yaml" "$BQ" 2>"$TMP/err"
[ $? -eq 3 ] && has "$TMP/err" "tried $TMP/none.sock (BACKFILLD_SOCKET): $NOENT $HINT" &&
	! has "$TMP/err" "b.sock"
ok $? "a socket the user named is final: no fallback to the configuration's (exit 3)"

# ---- the error ----
"$BQ" --socket "$TMP/none.sock" 2>"$TMP/err"
[ $? -eq 3 ] && [ "$(cat "$TMP/err")" = "bq: cannot reach backfilld: tried $TMP/none.sock (--socket): $NOENT $HINT" ]
ok $? "no daemon: the path tried, where it came from and why it failed"

# ---- a broken configuration file ----
[ "$(size env -u BACKFILLD_SOCKET BACKFILLD_CONFIG="$TMP/b-bad-policy.yaml" "$BQ")" = 5 ] &&
	has "$TMP/err" "bq: warning: $TMP/b-bad-policy.yaml has 1 error (the first: $TMP/b-bad-policy.yaml:2:9: policy: unknown policy 'easyy'" &&
	has "$TMP/err" "its socket key is used"
ok $? "a file with errors: named with its first error; its valid socket key still used"
env -u BACKFILLD_SOCKET BACKFILLD_CONFIG="$TMP/b-syntax.yaml" "$BQ" 2>"$TMP/err" >/dev/null
has "$TMP/err" "bq: warning: $TMP/b-syntax.yaml has 1 error (the first: $TMP/b-syntax.yaml:2:" &&
	has "$TMP/err" "the default sockets are tried" &&
	has "$TMP/err" "tried $TMP/b-syntax.yaml (config file): no valid socket key; /run/backfilld/backfilld.sock (system path)"
ok $? "a syntax error before the socket key: reported, and the search goes on to the system path"
env -u BACKFILLD_SOCKET BACKFILLD_CONFIG="$TMP/missing.yaml" "$BQ" 2>"$TMP/err" >/dev/null
has "$TMP/err" "bq: warning: BACKFILLD_CONFIG names $TMP/missing.yaml: cannot open: $NOENT; the default sockets are tried" &&
	has "$TMP/err" "tried $TMP/missing.yaml (config file): cannot be read; /run/backfilld/backfilld.sock (system path)"
ok $? "a missing \$BACKFILLD_CONFIG: warned about, then the defaults"

# ---- the system path, the per-user default (private /run and /tmp) ----
if [ "$NS" = 1 ]; then
	mkdir -m 700 "$TMP/xdg" "$TMP/state" && chown nobody:nogroup "$TMP/xdg" "$TMP/state"
	NB="$AS_NOBODY env -u BACKFILLD_SOCKET BACKFILLD_CONFIG=$TMP/empty.yaml XDG_RUNTIME_DIR=$TMP/xdg"
	# C: nobody's own daemon, 4 nodes, every path its default.
	$AS_NOBODY env -u BACKFILLD_SOCKET XDG_RUNTIME_DIR="$TMP/xdg" XDG_STATE_HOME="$TMP/state" \
		"$BFD" --foreground --nodes 4 >"$TMP/c.log" 2>&1 &
	CPID=$!; PIDS="$PIDS $CPID"
	# shellcheck disable=SC2086
	until_size 4 $NB "$BQ" && ! grep -q "note" "$TMP/err"
	ok $? "no system socket: a user's client finds the user's own daemon at the per-user default (no note)"
	[ -S "$TMP/xdg/backfilld/backfilld.sock" ] && [ -f "$TMP/state/backfilld/state.db" ] &&
		[ -d "$TMP/state/backfilld/spool" ] &&
		[ "$(stat -c %a:%U "$TMP/xdg/backfilld")" = "700:nobody" ]
	ok $? "started from /, its defaults are absolute: \$XDG_RUNTIME_DIR/backfilld (0700), \$XDG_STATE_HOME/backfilld"

	# S: the system daemon, 3 nodes.
	"$BFD" --foreground --socket /run/backfilld/backfilld.sock --db "$TMP/s.db" \
		--spool "$TMP/s.spool" --nodes 3 >"$TMP/s.log" 2>&1 &
	SPID=$!; PIDS="$PIDS $SPID"
	until_size 3 "$BQ" --socket /run/backfilld/backfilld.sock
	ok $? "daemon S (3 nodes) on the system path"
	# shellcheck disable=SC2086
	[ "$(size $NB "$BQ")" = 3 ]
	ok $? "the system path, when it exists, wins over the per-user default"
	U="$TMP/xdg/backfilld/backfilld.sock"
	[ "$(grep -c note "$TMP/err")" -eq 1 ] &&
		has "$TMP/err" "bq: note: talking to backfilld at /run/backfilld/backfilld.sock (system path); another answers at $U (per-user default): --socket $U or BACKFILLD_SOCKET=$U reaches it"
	ok $? "  and the client says which daemon it talks to, and how to reach the other, once"
	# shellcheck disable=SC2086
	[ "$(size $NB BACKFILLD_SOCKET="$U" "$BQ")" = 4 ] && ! grep -q "note" "$TMP/err"
	ok $? "  BACKFILLD_SOCKET reaches the user's own daemon, with no note"
	! grep -q "system backfilld answers" "$TMP/c.log" "$TMP/s.log"
	ok $? "  no warning from a daemon that started with no system daemon, nor from the system one"
	# P: another daemon of nobody's, started while the system one answers.
	$AS_NOBODY env -u BACKFILLD_SOCKET XDG_RUNTIME_DIR="$TMP/xdg" "$BFD" --foreground \
		--socket "$TMP/xdg/p.sock" --db "$TMP/state/p.db" --spool "$TMP/state/p.spool" \
		--nodes 1 >"$TMP/p.log" 2>&1 &
	PPID2=$!; PIDS="$PIDS $PPID2"
	# shellcheck disable=SC2086
	until_size 1 $AS_NOBODY "$BQ" --socket "$TMP/xdg/p.sock" &&
		has "$TMP/p.log" "the system backfilld answers at /run/backfilld/backfilld.sock, and bsub, bq and bkill try it before this daemon: to reach this one, give them --socket $TMP/xdg/p.sock or set BACKFILLD_SOCKET=$TMP/xdg/p.sock"
	ok $? "a daemon started while the system one answers warns that its clients find that one first"
	kill "$PPID2"; wait "$PPID2" 2>/dev/null
	[ "$(size env -u BACKFILLD_SOCKET BACKFILLD_CONFIG="$TMP/gone.yaml" "$BQ")" = 3 ]
	ok $? "a configured socket with no socket file there is passed over for the system path"
	[ "$(size env -u BACKFILLD_SOCKET BACKFILLD_CONFIG="$TMP/b-syntax.yaml" "$BQ")" = 3 ] &&
		has "$TMP/err" "bq: warning: $TMP/b-syntax.yaml has 1 error"
	ok $? "a broken configuration file does not stop the fallback: the system daemon answers"
	[ "$(size env -u BACKFILLD_SOCKET BACKFILLD_CONFIG="$TMP/b.yaml" "$BQ")" = 5 ]
	ok $? "the configuration's socket wins over the system path"

	kill "$SPID"; wait "$SPID" 2>/dev/null
	# shellcheck disable=SC2086
	[ "$(size $NB "$BQ")" = 4 ]
	ok $? "the system daemon stopped (socket gone): the per-user default again"
	kill "$CPID"; wait "$CPID" 2>/dev/null
	# shellcheck disable=SC2086
	$NB "$BQ" 2>"$TMP/err"
	[ $? -eq 3 ] && [ "$(cat "$TMP/err")" = "bq: cannot reach backfilld: tried $TMP/empty.yaml (config file): no socket key; /run/backfilld/backfilld.sock (system path): $NOENT; $TMP/xdg/backfilld/backfilld.sock (per-user default): $NOENT $HINT" ]
	ok $? "none answers: every path tried, in order, each with its source and reason"

	# No $XDG_RUNTIME_DIR: /tmp/backfilld-UID, which must be the user's own.
	NT="$AS_NOBODY env -u BACKFILLD_SOCKET -u XDG_RUNTIME_DIR BACKFILLD_CONFIG=$TMP/empty.yaml"
	mkdir -m 755 /tmp/backfilld-65534
	# shellcheck disable=SC2086
	$NT "$BQ" 2>"$TMP/err"
	[ $? -eq 3 ] && has "$TMP/err" "/tmp/backfilld-65534/backfilld.sock (per-user default): /tmp/backfilld-65534 belongs to uid 0, not to you (refused)"
	ok $? "a /tmp/backfilld-UID made by another user is refused by the client"
	# shellcheck disable=SC2086
	timeout 10 $NT XDG_STATE_HOME="$TMP/state" "$BFD" --foreground --nodes 1 >"$TMP/d.log" 2>&1
	[ $? -eq 1 ] && has "$TMP/d.log" "belongs to uid 0, not to you (refused)"
	ok $? "and by the daemon, which does not start there"
	rmdir /tmp/backfilld-65534 && ln -s "$TMP/xdg" /tmp/backfilld-65534
	# shellcheck disable=SC2086
	$NT "$BQ" 2>"$TMP/err"
	[ $? -eq 3 ] && has "$TMP/err" "/tmp/backfilld-65534 is a symbolic link (refused)"
	ok $? "a symbolic link there is refused, not followed"
	rm /tmp/backfilld-65534
	# shellcheck disable=SC2086
	$NT XDG_STATE_HOME="$TMP/state" "$BFD" --foreground --nodes 6 >"$TMP/d.log" 2>&1 &
	DPID2=$!; PIDS="$PIDS $DPID2"
	# shellcheck disable=SC2086
	until_size 6 $NT "$BQ" && [ "$(stat -c %a:%U /tmp/backfilld-65534)" = "700:nobody" ]
	ok $? "without \$XDG_RUNTIME_DIR the daemon makes /tmp/backfilld-UID (0700, its own) and the client finds it"
else
	for t in "per-user default" "absolute defaults" "system daemon" "system path over per-user" \
		"note: which daemon" "no note with BACKFILLD_SOCKET" "no warning without a system daemon" \
		"warning at the start" "passed over" "broken config fallback" "config over system" "per-user again" \
		"every path tried" "foreign /tmp dir (client)" "foreign /tmp dir (daemon)" "symlink" \
		"/tmp/backfilld-UID made"; do
		skip "$t"
	done
fi

# A socket that exists but does not answer ends the search: B killed -9
# leaves its socket file.
kill -9 "$BPID"; wait "$BPID" 2>/dev/null
env -u BACKFILLD_SOCKET BACKFILLD_CONFIG="$TMP/b.yaml" "$BQ" 2>"$TMP/err"
[ $? -eq 3 ] && [ "$(cat "$TMP/err")" = "bq: cannot reach backfilld: tried $TMP/b.sock (socket key in $TMP/b.yaml): Connection refused $HINT" ]
ok $? "a configured socket nobody answers on: reported, no guess at another daemon"
done_testing
