#!/bin/sh
# Every option a program's --help names is in its man page (the pages
# match --help): bsub, bq, bkill, bctl, bstop, bresume, blaunch and backfilld.
. "$BF_TOP/tests/lib.sh"

# options PROG: the options --help names, one per line.
options() {
	"$BF_BUILD/$1" --help | grep -o -- '\(^\|[ [(|,]\)--\?[A-Za-z][A-Za-z0-9-]*' |
		sed 's/^[ [(|,]//' | sort -u
}
# page PROG SECTION: the page as text, roff's \- as -.
page() { sed 's/\\-/-/g; s/\\f[BIRP]//g' "$BF_TOP/man/$1.$2"; }

for p in bsub:1 bq:1 bkill:1 bctl:8 bstop:1 blaunch:1 backfilld:8; do
	prog=${p%:*}; sec=${p#*:}
	missing=
	for o in $(options "$prog"); do
		page "$prog" "$sec" | grep -q -- "\\(^\\|[^A-Za-z0-9-]\\)$o\\([^A-Za-z0-9-]\\|$\\)" ||
			missing="$missing $o"
	done
	[ -z "$missing" ]
	ok $? "$prog --help: every option is in $prog($sec)${missing:+ (missing:$missing)}"
done
options bresume | while read -r o; do page bstop 1 | grep -q -- "$o" || echo "missing $o"; done >"$TMP/m"
[ ! -s "$TMP/m" ]
ok $? "bresume --help: every option is in bstop(1), its page"
done_testing
