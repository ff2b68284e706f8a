/* The journal backend's pure parts: which stderr is the journal's
 * (JOURNAL_STREAM) and the fields of an entry. Sending is tested end to
 * end in tests/daemon/systemd.sh. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "sys/journal.h"
#include "tap.h"

/* Field k of the entry, as the text it holds (iov_len bytes). */
static int field_is(const struct journal_entry *e, int k, const char *want)
{
	return k < e->n && e->iov[k].iov_len == strlen(want) &&
	       memcmp(e->iov[k].iov_base, want, strlen(want)) == 0;
}

static void test_stream(void)
{
	static const char *const bad[] = {
		"", ":", "8:", ":5", " 8:5", "+8:5", "-8:5", "8:5x", "8:5:1", "8 :5", "8: 5",
		"0x8:5", "99999999999999999999999:5", "8:99999999999999999999999",
	};
	struct stat st;
	char env[64];

	ok(journal_stream_matches("8:5", 8, 5), "JOURNAL_STREAM 8:5 names device 8, inode 5");
	ok(journal_stream_matches("66306:18446744073709551615", 66306, (ino_t)18446744073709551615ULL),
	   "the largest inode is read whole");
	ok(!journal_stream_matches("8:5", 8, 6), "another inode is not the stream");
	ok(!journal_stream_matches("8:5", 9, 5), "another device is not the stream");
	ok(!journal_stream_matches(NULL, 8, 5), "no JOURNAL_STREAM: no journal");
	for (size_t k = 0; k < sizeof bad / sizeof *bad; k++)
		ok(!journal_stream_matches(bad[k], 8, 5), "malformed JOURNAL_STREAM '%s' is refused",
		   bad[k]);

	if (fstat(2, &st) < 0) {
		ok(0, "fstat of stderr");
		return;
	}
	snprintf(env, sizeof env, "%llu:%llu", (unsigned long long)st.st_dev,
	         (unsigned long long)st.st_ino);
	setenv("JOURNAL_STREAM", env, 1);
	ok(journal_is_stderr(), "JOURNAL_STREAM naming fd 2 (%s) means stderr is the journal's", env);
	snprintf(env, sizeof env, "%llu:%llu", (unsigned long long)st.st_dev,
	         (unsigned long long)st.st_ino + 1);
	setenv("JOURNAL_STREAM", env, 1);
	ok(!journal_is_stderr(), "JOURNAL_STREAM naming another file (a redirected stderr) does not");
	unsetenv("JOURNAL_STREAM");
	ok(!journal_is_stderr(), "without JOURNAL_STREAM stderr is not the journal's");
}

static void test_fields(void)
{
	struct journal_entry e;
	char longmsg[3000];

	journal_fields(&e, 6, "listening on /run/backfilld/backfilld.sock", false, 0, NULL, NULL);
	ok_eq(e.n, 3, "a plain line has three fields");
	ok(field_is(&e, 0, "MESSAGE=listening on /run/backfilld/backfilld.sock"), "MESSAGE= is the line");
	ok(field_is(&e, 1, "PRIORITY=6"), "PRIORITY= is the syslog priority");
	ok(field_is(&e, 2, "SYSLOG_IDENTIFIER=backfilld"), "SYSLOG_IDENTIFIER=backfilld");

	journal_fields(&e, 5, "job 42: started on node001", true, 42, "alice", NULL);
	ok_eq(e.n, 5, "a job's line has two fields more");
	ok(field_is(&e, 0, "MESSAGE=job 42: started on node001") && field_is(&e, 1, "PRIORITY=5"),
	   "its MESSAGE= and PRIORITY=");
	ok(field_is(&e, 3, "JOB_ID=42"), "JOB_ID= is the job's id");
	ok(field_is(&e, 4, "JOB_USER=alice"), "JOB_USER= is its owner");

	journal_fields(&e, 4, "job 18446744073709551615: lost", true, UINT64_MAX, NULL, NULL);
	ok(e.n == 4 && field_is(&e, 3, "JOB_ID=18446744073709551615"),
	   "no owner known: JOB_ID= alone, the largest id whole");

	journal_fields(&e, 12, "x", false, 0, NULL, NULL);
	ok(field_is(&e, 1, "PRIORITY=4"), "PRIORITY= keeps the priority's bits only (0-7)");

	memset(longmsg, 'm', sizeof longmsg - 1);
	longmsg[sizeof longmsg - 1] = 0;
	journal_fields(&e, 6, longmsg, true, 1, longmsg, NULL);
	ok(e.iov[0].iov_len == sizeof e.message - 1 &&
	   memcmp(e.iov[0].iov_base, "MESSAGE=mmm", 11) == 0, "a message longer than its field is cut");
	ok(e.iov[4].iov_len == sizeof e.job_user - 1 &&
	   memcmp(e.iov[4].iov_base, "JOB_USER=mmm", 12) == 0, "so is a user name");

	journal_fields(&e, 6, "two\nlines", false, 0, NULL, NULL);
	ok(field_is(&e, 0, "MESSAGE=two\nlines"),
	   "a newline stays in the value (sd_journal_sendv sends such a field binary-safe)");

	/* A line that says a time in words keeps the microseconds in a field. */
	journal_fields(&e, 4, "job 7: guarantee broken", true, 7, "bob",
	               "GUARANTEE_FROM_US=1795836214566369\nGUARANTEE_TO_US=1795836814566369\n");
	ok(e.n == 7 && field_is(&e, 5, "GUARANTEE_FROM_US=1795836214566369") &&
	   field_is(&e, 6, "GUARANTEE_TO_US=1795836814566369"),
	   "extra fields follow the job's, one per line, without the newline");
	journal_fields(&e, 4, "x", false, 0, NULL, "A=1\n\nB=2\nC=3\nD=4\nE=5");
	ok(e.n == JOURNAL_FIELDS - 2 && field_is(&e, 3, "A=1") && field_is(&e, 5, "C=3"),
	   "empty lines are skipped; no more than JOURNAL_EXTRA extra fields");
}

int main(void)
{
	test_stream();
	test_fields();
	return tap_done();
}
