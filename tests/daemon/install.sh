#!/bin/sh
# make install and make uninstall into a temporary DESTDIR: every file
# where a Debian package puts it (PREFIX=/usr), with its mode; the units
# start the installed binary; an edited configuration survives a second
# install and the uninstall; the uninstall leaves no file of ours behind.
# make runs with the test's own build directory, never the default one.
. "$BF_TOP/tests/lib.sh"
case $BF_BUILD in
"$BF_TOP"/*) BUILD=${BF_BUILD#"$BF_TOP"/} ;;	# as the build named it: its .d files apply
*) BUILD=$BF_BUILD ;;
esac
D="$TMP/root"

# mk DESTDIR PREFIX TARGET: make, its output in $TMP/make.log.
mk() {
	make -C "$BF_TOP" --no-print-directory BUILD="$BUILD" DESTDIR="$1" PREFIX="$2" "$3" \
		>"$TMP/make.log" 2>&1 || { sed 's/^/#   /' "$TMP/make.log"; return 1; }
}
# mode FILE: octal permissions, or "missing".
mode() { [ -f "$1" ] && stat -c %a "$1" || echo missing; }
# files DIR: every file (not directory) under DIR, relative, sorted.
files() { (cd "$1" && find . ! -type d | sed 's|^\./||' | sort); }

CONF=etc/backfilld/backfilld.yaml
{
	echo usr/sbin/backfilld
	for c in bsub bq bkill bctl bstop bresume blaunch; do echo "usr/bin/$c"; done
	for p in "$BF_TOP"/man/*.[1-8]; do
		b=${p##*/}; echo "usr/share/man/man${b##*.}/$b"
	done
	echo usr/lib/systemd/system/backfilld.service
	echo usr/lib/systemd/system/backfilld.socket
	echo usr/lib/tmpfiles.d/backfilld.conf
	echo "$CONF"
} | sort >"$TMP/expected"

mk "$D" /usr install
ok $? "make install DESTDIR=... PREFIX=/usr"
files "$D" >"$TMP/got"
diff "$TMP/expected" "$TMP/got" >"$TMP/diff"
ok $? "exactly the expected files: binaries, pages, units, tmpfiles.d entry, configuration"
sed 's/^/#   /' "$TMP/diff"

bad=0
for f in usr/sbin/backfilld usr/bin/bsub usr/bin/bq usr/bin/bkill usr/bin/bctl usr/bin/bstop usr/bin/bresume \
	usr/bin/blaunch; do
	[ "$(mode "$D/$f")" = 755 ] && cmp -s "$D/$f" "$BF_BUILD/${f##*/}" || { echo "# $f"; bad=1; }
done
ok $bad "the programs are this build's, mode 755 (backfilld in sbin, the clients in bin)"
bad=0
for p in "$BF_TOP"/man/*.[1-8]; do
	b=${p##*/}; f="$D/usr/share/man/man${b##*.}/$b"
	alias=$(sed -n '1s/^\.\\" alias: *//p' "$p")
	if [ -n "$alias" ]; then
		[ "$(mode "$f")" = 644 ] && [ "$(cat "$f")" = ".so man${alias##*.}/$alias" ]
	else
		[ "$(mode "$f")" = 644 ] && cmp -s "$f" "$p"
	fi || { echo "# $f"; bad=1; }
done
ok $bad "every page in its section's directory, mode 644 (an alias as .so of its page)"
# Each installed page renders as man finds it (from the tree's root, where
# a .so is resolved), without a warning.
bad=0
if command -v man >/dev/null 2>&1; then
	for p in "$BF_TOP"/man/*.[1-8]; do
		b=${p##*/}
		(cd "$D/usr/share/man" && MANWIDTH=80 man -l "man${b##*.}/$b" >"$TMP/page" 2>"$TMP/page.err") &&
			[ ! -s "$TMP/page.err" ] && [ -s "$TMP/page" ] || { echo "# $b: $(head -c 200 "$TMP/page.err")"; bad=1; }
	done
	ok $bad "every installed page renders (man -l from the man tree), bresume.1 as bstop(1)"
else
	ok 0 "no man here: the installed pages not rendered"
fi
for u in service socket; do
	[ "$(mode "$D/usr/lib/systemd/system/backfilld.$u")" = 644 ]
	ok $? "backfilld.$u in /usr/lib/systemd/system, mode 644"
done
grep -q '^ExecStart=/usr/sbin/backfilld\( \|$\)' "$D/usr/lib/systemd/system/backfilld.service"
ok $? "the service starts /usr/sbin/backfilld"
f="$D/usr/lib/tmpfiles.d/backfilld.conf"
[ "$(mode "$f")" = 644 ] && grep -q '^d /var/spool/backfilld *0711 root root -$' "$f" &&
	grep -q '^d /var/lib/backfilld *0700 root root -$' "$f"
ok $? "tmpfiles.d/backfilld.conf: the spool 0711, the state 0700, as the daemon makes them"
[ "$(mode "$D/$CONF")" = 644 ] && [ "$(stat -c %a "$D/etc/backfilld")" = 755 ] &&
	cmp -s "$D/$CONF" "$BF_TOP/etc/backfilld.yaml"
ok $? "the example configuration as /etc/backfilld/backfilld.yaml, 0644 (clients read its socket key)"

# Another PREFIX: the unit follows the binary; the configuration stays in /etc.
mk "$TMP/opt" /opt/bf install
grep -q '^ExecStart=/opt/bf/sbin/backfilld\( \|$\)' "$TMP/opt/opt/bf/lib/systemd/system/backfilld.service" &&
	[ -x "$TMP/opt/opt/bf/sbin/backfilld" ] && [ -f "$TMP/opt/$CONF" ]
ok $? "PREFIX=/opt/bf: ExecStart is /opt/bf/sbin/backfilld; the configuration still in /etc"

# An administrator's edit survives a second install.
echo "policy: conservative  # edited" >>"$D/$CONF"
cp "$D/$CONF" "$TMP/edited"
mk "$D" /usr install
cmp -s "$D/$CONF" "$TMP/edited" && cmp -s "$D/$CONF.example" "$BF_TOP/etc/backfilld.yaml" &&
	grep -q "kept $D/$CONF" "$TMP/make.log"
ok $? "a second install keeps the edited configuration, says so, and puts the example beside it"

mk "$D" /usr uninstall
[ "$(files "$D")" = "$CONF" ] && cmp -s "$D/$CONF" "$TMP/edited" &&
	grep -q "kept $D/$CONF" "$TMP/make.log"
ok $? "uninstall removes every file it put, keeps the edited configuration and says so"

cp "$BF_TOP/etc/backfilld.yaml" "$D/$CONF"
mk "$D" /usr install && [ ! -e "$D/$CONF.example" ]
ok $? "the shipped configuration again: no .example beside it"
mk "$D" /usr uninstall
[ -z "$(files "$D")" ] && [ ! -e "$D/etc/backfilld" ]
ok $? "uninstall of an unedited install: no file left, /etc/backfilld gone"
mk "$TMP/opt" /opt/bf uninstall
[ -z "$(files "$TMP/opt")" ]
ok $? "the same for PREFIX=/opt/bf"
done_testing
