# The layout is a rule (issue 24, ARCHITECTURE.md "Where things live"):
# daemon/ is main.c and three rooms; only serve/ sees struct daemon (its
# header serve/daemon.h); sys/ never sees whatif/ (whatif/ may use sys/); common/,
# the pure library, includes nothing above it; the clients include nothing
# of serve/; and daemon/ holds no circle. Checked from the sources under
# BF_TOP (any tree: point it at a scratch copy to try a rule), and, when
# BF_BUILD holds the daemon's objects, from their calls too (mk/floors.sh).
# Each rule is one TAP line; a failure names the files, then "#" lines say
# which include breaks it.
here=$(cd "$(dirname "$0")/../.." && pwd)	# this checkout: lib.sh, floors.sh
BF_TOP=${BF_TOP:-$here}
BF_BUILD=${BF_BUILD:-$BF_TOP/build}
. "$here/tests/lib.sh"
cd "$BF_TOP" || exit 1

# includes DIR...: "file <tab> spelling <tab> the file the compiler takes"
# for every quoted include of the .c and .h files under each DIR that
# exists, resolved as the compiler does (mk/includes.sh); empty if none
# has it.
includes() {
	for d in "$@"; do [ -d "$d" ] && find "$d" -type f \( -name '*.c' -o -name '*.h' \); done |
		LC_ALL=C sort | sh "$here/mk/includes.sh"
}

# rule DESCRIPTION FILE: ok when FILE (one "file <tab> why" a line) is
# empty; else not ok, naming the files, and one "#" line for each.
rule() {
	if [ ! -s "$2" ]; then
		ok 0 "$1"
	else
		ok 1 "$1: $(cut -f1 "$2" | LC_ALL=C sort -u | awk 'NR <= 6 { printf "%s%s", (NR > 1 ? " " : ""), $0 } END { if (NR > 6) printf " and %d more", NR - 6 }')"
		sed 's/\t/: /; s/^/#   /' "$2"
	fi
}

# missing ROOM...: one line for each room that is not there (a rule about
# a room that is missing fails: the layout is the rule).
missing() {
	for r in "$@"; do [ -d "$r" ] || printf '%s/\tis missing\n' "$r"; done
}

# The serve/ headers, by name, to know "daemon.h" or "conn.h" for what it
# means wherever it is spelled.
serve_names=" daemon.h $( [ -d daemon/serve ] && find daemon/serve -name '*.h' -exec basename {} \; | tr '\n' ' ')"

# 1. The rooms.
{
	missing daemon/serve daemon/sys daemon/whatif
	[ -d daemon/serve ] && [ ! -f daemon/serve/daemon.h ] &&
		printf 'daemon/serve/daemon.h\tis missing (the header of struct daemon)\n'
	find daemon -maxdepth 1 -type f \( -name '*.c' -o -name '*.h' \) ! -name main.c |
		LC_ALL=C sort | sed 's/$/\tlies outside the rooms/'
} >"$TMP/rooms"
rule "daemon/ is main.c and the rooms serve/, sys/, whatif/; serve/daemon.h is there" "$TMP/rooms"

# 2. Only serve/ sees struct daemon: sys/ and whatif/ include no serve/
# header, however spelled ("serve/x.h", "../serve/x.h", a bare "daemon.h").
{
	missing daemon/sys daemon/whatif
	includes daemon/sys daemon/whatif | awk -F '\t' -v names="$serve_names" '
		{ b = $2; sub(/.*\//, "", b) }
		$3 ~ /^daemon\/serve\// || $2 ~ /(^|\/)serve\// || b == "daemon.h" ||
		($3 == "" && index(names, " " b " ")) { print $1 "\tincludes \"" $2 "\"" }'
} >"$TMP/sees"
rule "no file in daemon/sys/ or daemon/whatif/ includes a serve/ header (struct daemon)" "$TMP/sees"

# ... nor names the struct (a declaration of its own is seeing it too).
{
	missing daemon/sys daemon/whatif
	for d in daemon/sys daemon/whatif; do [ -d "$d" ] && grep -rnE 'struct[[:space:]]+daemon([^_[:alnum:]]|$)' "$d"; done |
		sed 's/:\([0-9]*\):.*/\tnames struct daemon on line \1/'
} >"$TMP/names"
rule "no file in daemon/sys/ or daemon/whatif/ names struct daemon" "$TMP/names"

# 3. common/ stands below everything: a quoted include names a header of
# common/ itself (a system header comes with <>).
{
	missing common
	includes common | awk -F '\t' '$3 !~ /^common\/[^\/]*$/ {
		print $1 "\tincludes \"" $2 "\"" ($3 == "" ? ", no header of common/" : ", which is " $3) }'
} >"$TMP/common"
rule "no file in common/ includes anything but common/'s own headers" "$TMP/common"

# 4. sys/ never sees whatif/: an outside service serves the live daemon
# and the research toolkit alike (whatif/ may stand on sys/: the replay
# times itself with sys/clock.c), never one of them in particular.
{
	missing daemon/sys daemon/whatif
	includes daemon/sys | awk -F '\t' '$3 ~ /^daemon\/whatif\// || $2 ~ /(^|\/)whatif\// {
		print $1 "\tincludes \"" $2 "\"" }'
} >"$TMP/sys"
rule "no file in daemon/sys/ includes a whatif/ header" "$TMP/sys"

# 5. The clients stay thin: nothing of the live service.
{
	missing client daemon/serve
	includes client | awk -F '\t' -v names="$serve_names" '
		{ b = $2; sub(/.*\//, "", b) }
		$3 ~ /^daemon\/serve\// || $2 ~ /(^|\/)serve\// || b == "daemon.h" ||
		($3 == "" && index(names, " " b " ")) { print $1 "\tincludes \"" $2 "\"" }'
} >"$TMP/client"
rule "no file in client/ includes a serve/ header" "$TMP/client"

# 6. No circle in daemon/: by includes, from the sources alone.
# circles FLOORS-OUTPUT RESULT: the circles floors.sh printed, one a line.
circles() {
	if ! grep -q '^[0-9]* floors, [0-9]* arrows up, circles: ' "$1"; then
		sed 's/^/floors.sh\t/' "$1" | tail -5
	else
		sed -n '/^circles: /,/^$/s/^  \([0-9]* files\): \(.*\)/\2\tare a circle of \1/p' "$1"
	fi
}
sh "$here/mk/floors.sh" - daemon >"$TMP/floors-inc" 2>&1
circles "$TMP/floors-inc" >"$TMP/circ-inc"
rule "no circle among the files of daemon/ by their includes" "$TMP/circ-inc"

# 7. ... nor by their calls, when the daemon's objects are here to say.
if [ -n "$(find "$BF_BUILD/daemon" -name '*.o' 2>/dev/null | head -1)" ]; then
	sh "$here/mk/floors.sh" "$BF_BUILD" daemon >"$TMP/floors" 2>"$TMP/floors-err" ||
		cat "$TMP/floors-err" >>"$TMP/floors"
	circles "$TMP/floors" >"$TMP/circ"
	rule "no circle among the files of daemon/ by their includes and calls" "$TMP/circ"
else
	skip_check "no circle among the files of daemon/ by their includes and calls" \
		"no objects under $BF_BUILD/daemon (build first)"
fi

done_testing
