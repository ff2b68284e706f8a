#!/bin/sh
# The quoted includes of C files, resolved as the compiler resolves them:
# for each file named on standard input (one path a line, from the
# checkout's top), one line "file <tab> spelling <tab> the file the
# compiler takes", the last empty when none has it: the includer's own
# directory first, then the -iquote directories in the Makefile's order
# (INCLUDES_IQUOTE, default "common daemon client tests"). A <...> include
# is not listed: the -iquote directories are not searched for it.
# One reader for mk/floors.sh and tests/layout/layering.sh. POSIX sh, awk.
set -u
iquote=${INCLUDES_IQUOTE:-common daemon client tests}
tr '\n' '\0' | xargs -0 -r awk -v iquote="$iquote" '
function norm(p,   n, i, k, out, part) {	# drop "." and fold "x/.."
	n = split(p, part, "/"); k = 0
	for (i = 1; i <= n; i++) {
		if (part[i] == "" || part[i] == ".") continue
		if (part[i] == ".." && k > 0 && st[k] != "..") { k--; continue }
		st[++k] = part[i]
	}
	out = (substr(p, 1, 1) == "/") ? "/" : ""
	for (i = 1; i <= k; i++) out = out (i > 1 ? "/" : "") st[i]
	return out
}
function exists(p,   r, l) {		# cached: can the file be read?
	if (!(p in seen)) { r = (getline l < p); close(p); seen[p] = (r >= 0) }
	return seen[p]
}
BEGIN { nq = split(iquote, q, " ") }
FNR == 1 { dir = FILENAME; sub(/\/[^\/]*$/, "", dir) }
/^[ \t]*#[ \t]*include[ \t]*"/ {
	name = $0; sub(/^[^"]*"/, "", name); sub(/".*/, "", name)
	found = ""
	if (exists(norm(dir "/" name))) found = norm(dir "/" name)
	for (i = 1; found == "" && i <= nq; i++)
		if (exists(norm(q[i] "/" name))) found = norm(q[i] "/" name)
	printf "%s\t%s\t%s\n", FILENAME, name, found
}'
