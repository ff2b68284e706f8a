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
# Every page renders from the checkout (man -l man/PAGE), without a
# warning: a ".so man1/..." would not be found there (install.sh checks
# the installed tree, where an alias is one).
bad=0
if command -v man >/dev/null 2>&1; then
	for p in "$BF_TOP"/man/*.[1-8]; do
		(cd "$BF_TOP" && MANWIDTH=80 man -l "man/${p##*/}" >"$TMP/page" 2>"$TMP/page.err") &&
			[ ! -s "$TMP/page.err" ] && [ -s "$TMP/page" ] ||
			{ echo "# ${p##*/}: $(head -c 200 "$TMP/page.err")"; bad=1; }
	done
fi
ok $bad "every page renders from the checkout with man -l"
done_testing
