#!/bin/sh
# The floors of a source folder: which of its files stand on which, drawn
# from their includes and their calls, the arrows that run back up, and the
# circles (issue 24: the drawing before and after the layout).
# Usage: mk/floors.sh [BUILD [FOLDER]]   (defaults: build daemon)
# Run it from the top of the checkout: FOLDER is a path from there, and the
# objects are BUILD/FOLDER/**/X.o. BUILD "-" means includes only (no nm).
# FLOORS_IQUOTE: the -iquote directories, in the Makefile's order (default
# "common daemon client tests"), to find a quoted include as the compiler
# does (mk/includes.sh).
#
# Units. A file without its extension: X.c and X.h are one unit X (a path
# under FOLDER, such as serve/conn); a header without a .c is its own unit.
#
# Arrows. A depends on B when a file of A includes a header of B (the one the
# compiler would take: the includer's own directory first, then FLOORS_IQUOTE
# in order; a header outside FOLDER is not a unit and is dropped), or when
# A.o leaves a symbol undefined (U) that B.o defines (T D B R C G S V W).
#
# Circles. The strongly connected components of that graph (Tarjan); every
# component of two files or more is printed.
#
# Floors: the rule. A circle has no bottom, so some of its arrows have to be
# drawn running up. We choose which as a layered drawing does (Sugiyama's
# first step), with the greedy order of Eades, Lin and Smyth (1993): take
# away, again and again, every unit that depends on nothing left (it goes
# to the bottom of the order) and every unit nothing left depends on (to
# the top); when only circles are left, take the unit with the most arrows
# out less arrows in (ties: name order) and put it on top. An arrow against
# that order is left out; without them the graph has no circle, and a
# unit's floor is 1 + the highest floor it depends on (floor 0: depends on
# nothing in FOLDER). An arrow "runs back up" when it does not point to a
# lower floor: only a left-out arrow can. On the flat daemon/ of 37b3695
# this leaves 28 arrows up where a depth-first search in name order (the
# other usual choice) left 47; the fewest possible is an NP-hard question.
# The order is stable: one tree, one drawing; a tree with no circle gets a
# topological order, so no arrow up at all. (Issue 24's "11 floors, 17
# arrows up, a 9-file circle" came from another rule and tree: on 37b3695
# this one draws 10 floors, 28 arrows up and a 19-file circle, 14 files by
# calls alone; the old server.h, included by all, declared most files' calls.)
#
# The last line is the summary: "N floors, M arrows up, circles: K (largest
# S files)". POSIX sh, find, sort, nm and awk (mawk is enough), for CI's
# fresh Debian.
set -u
LC_ALL=C; export LC_ALL
build=${1:-build}; build=${build%/}
folder=${2:-daemon}
folder=${folder%/}; folder=${folder#./}
iquote=${FLOORS_IQUOTE:-common daemon client tests}
[ -d "$folder" ] || { echo "floors: no folder $folder (run from the checkout's top)" >&2; exit 2; }
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT

# The units: every .c and .h under FOLDER.
find "$folder" -type f \( -name '*.c' -o -name '*.h' \) | sort >"$tmp/files"
sed "s|^$folder/||; s|\.[ch]\$||" "$tmp/files" | sort -u >"$tmp/units"

# Arrows from includes: "A <tab> B <tab> include <tab> spelling", from
# mk/includes.sh's resolution (a header outside FOLDER is no unit).
INCLUDES_IQUOTE=$iquote sh "$(dirname "$0")/includes.sh" <"$tmp/files" |
awk -F '\t' -v folder="$folder" '
function unit(p) {			# the unit of a path under folder, or ""
	if (substr(p, 1, length(folder) + 1) != folder "/" || p !~ /\.[ch]$/) return ""
	p = substr(p, length(folder) + 2); sub(/\.[ch]$/, "", p); return p
}
{ me = unit($1); u = unit($3); if (u != "" && u != me) printf "%s\t%s\tinclude\t%s\n", me, u, $2 }
' >"$tmp/edges"

# Arrows from calls: each object whose source is still in FOLDER (a stale
# object of a file that moved away would draw a unit that is not there).
if [ "$build" != - ]; then
	[ -d "$build/$folder" ] || { echo "floors: no objects: $build/$folder is missing" >&2; exit 2; }
	find "$build/$folder" -type f -name '*.o' | sort | while read -r o; do
		rel=${o#"$build/$folder/"}
		if [ -f "$folder/${rel%.o}.c" ]; then echo "$o"; else echo "floors: $o: no $folder/${rel%.o}.c, left out" >&2; fi
	done >"$tmp/objs"
	[ -s "$tmp/objs" ] || { echo "floors: no objects under $build/$folder" >&2; exit 2; }
	# shellcheck disable=SC2046
	nm -P -A $(cat "$tmp/objs") >"$tmp/nm" || exit 2
	awk -v pre="$build/$folder/" '
	{ u = $1; sub(/:$/, "", u); u = substr(u, length(pre) + 1); sub(/\.o$/, "", u) }
	$3 ~ /^[TDBRCGSVW]$/ && !($2 in def) { def[$2] = u }
	$3 == "U" { n++; uu[n] = u; us[n] = $2 }
	END { for (i = 1; i <= n; i++)
		if ((us[i] in def) && def[us[i]] != uu[i])
			printf "%s\t%s\tcall\t%s\n", uu[i], def[us[i]], us[i] }' "$tmp/nm" >>"$tmp/edges"
fi
sort -u "$tmp/edges" >"$tmp/edges.s"

# Circles, floors and the drawing. Units are numbered in name order and the
# arrows come sorted, so every loop below runs in a stable order.
awk -v folder="$folder" -F '\t' '
NR == FNR { nu++; name[nu] = $1; id[$1] = nu; next }
{
	a = id[$1]; b = id[$2]
	if (!((a, b) in has)) { has[a, b] = 1; deg[a]++; adj[a, deg[a]] = b }
	if ($3 == "call") calls[a, b] = calls[a, b] " " $4
	else incs[a, b] = incs[a, b] " " $4
}
function tarjan(v,   i, w) {		# strongly connected components
	idx[v] = low[v] = ++counter; stk[++sp] = v; on[v] = 1
	for (i = 1; i <= deg[v]; i++) {
		w = adj[v, i]
		if (!(w in idx)) { tarjan(w); if (low[w] < low[v]) low[v] = low[w] }
		else if (on[w] && idx[w] < low[v]) low[v] = idx[w]
	}
	if (low[v] == idx[v]) {
		nc++
		do { w = stk[sp--]; on[w] = 0; comp[w] = nc; size[nc]++ } while (w != v)
	}
}
function degrees(   a, i, b) {		# arrows among the units left
	for (a = 1; a <= nu; a++) { din[a] = 0; dout[a] = 0 }
	for (a = 1; a <= nu; a++) if (!gone[a]) for (i = 1; i <= deg[a]; i++) {
		b = adj[a, i]
		if (!gone[b]) { dout[a]++; din[b]++ }
	}
}
function take(v, p) { pos[v] = p; gone[v] = 1; left--; degrees() }
function order(   v, more, best, top, bottom) {	# Eades, Lin, Smyth
	left = nu; top = 0; bottom = nu + 1; degrees()
	while (left > 0) {
		more = 1
		while (more) {
			more = 0
			for (v = 1; v <= nu; v++) if (!gone[v] && !dout[v]) { take(v, --bottom); more = 1 }
			for (v = 1; v <= nu; v++) if (!gone[v] && !din[v]) { take(v, ++top); more = 1 }
		}
		best = 0
		for (v = 1; v <= nu; v++)
			if (!gone[v] && (!best || dout[v] - din[v] > dout[best] - din[best])) best = v
		if (best) take(best, ++top)
	}
}
function floor_of(v,   i, w, f) {	# longest way down, along the order
	if (v in fl) return fl[v]
	f = 0
	for (i = 1; i <= deg[v]; i++) {
		w = adj[v, i]
		if (!(pos[v] > pos[w]) && floor_of(w) + 1 > f) f = floor_of(w) + 1
	}
	return fl[v] = f
}
function why(a, b,   s) {
	s = ""
	if ((a, b) in calls) s = "calls" calls[a, b]
	if ((a, b) in incs) s = s (s != "" ? "; " : "") "includes" incs[a, b]
	return s
}
END {
	for (v = 1; v <= nu; v++) if (!(v in idx)) tarjan(v)
	order()
	top = 0
	for (v = 1; v <= nu; v++) if (floor_of(v) > top) top = floor_of(v)
	printf "floors of %s/ (%d files; an arrow A -> B: A includes or calls B)\n", folder, nu
	for (f = top; f >= 0; f--) {
		line = ""
		for (v = 1; v <= nu; v++) if (fl[v] == f) line = line " " name[v]
		printf "floor %2d:%s\n", f, line
	}
	up = ""; nup = 0	# every arrow that does not point to a lower floor
	for (a = 1; a <= nu; a++) for (i = 1; i <= deg[a]; i++) {
		b = adj[a, i]
		if (fl[a] <= fl[b]) {
			nup++
			up = up sprintf("  %s (%d) -> %s (%d): %s\n", name[a], fl[a], name[b], fl[b], why(a, b))
		}
	}
	printf "\narrows running back up (to the same floor or higher): %d\n%s", nup, up
	# A circle is named by its first member in name order, and printed so.
	k = 0; big = 0
	for (v = 1; v <= nu; v++) {
		c = comp[v]
		if (size[c] < 2 || (c in done)) continue
		done[c] = 1; k++; if (size[c] > big) big = size[c]
		line = ""
		for (w = v; w <= nu; w++) if (comp[w] == c) line = line " " name[w]
		circ[k] = sprintf("  %d files:%s", size[c], line)
	}
	printf "\ncircles: %d\n", k
	for (i = 1; i <= k; i++) print circ[i]
	printf "\n%d floors, %d arrows up, circles: %d (largest %d files)\n", top + 1, nup, k, big
}' "$tmp/units" "$tmp/edges.s"
