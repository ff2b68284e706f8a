/* The syncer (daemon/sys/syncer.c) on its own: a flush asked is told once in
 * the loop, a second is refused while one is under way, a wait in the
 * loop tells it at once (and not again), checkpoints run on the thread,
 * asked twice while under way run once more at most, a failing flush is
 * told with its errno, and freeing it finishes what was asked. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <event2/event.h>
#include "tap.h"
#include "sys/failpoint.h"
#include "sys/syncer.h"

struct told {
	int spool, ckpt, spool_err, ckpt_err;
	struct event_base *base;
};

static void done(void *arg, unsigned what, int err)
{
	struct told *t = arg;

	if (what == SYNC_SPOOL) {
		t->spool++;
		t->spool_err = err;
	} else {
		t->ckpt++;
		t->ckpt_err = err;
	}
	event_base_loopbreak(t->base);
}

/* A checkpoint that takes a while and counts its runs, and which thread
 * ran it (not the loop's). */
static int ckpt_runs;
static pthread_t ckpt_thread;

static int slow_checkpoint(void *ctx)
{
	(void)ctx;
	ckpt_thread = pthread_self();
	usleep(20000);
	__atomic_add_fetch(&ckpt_runs, 1, __ATOMIC_SEQ_CST);
	return 0;
}

/* Run the loop until `done` was called `want` times in all (10 s at most). */
static void loop_until(struct told *t, int want)
{
	struct timeval ten = { 10, 0 };

	while (t->spool + t->ckpt < want) {
		event_base_loopexit(t->base, &ten);
		if (event_base_dispatch(t->base) != 0)
			break;
		if (t->spool + t->ckpt < want && event_base_got_exit(t->base))
			break;	/* ten seconds without it */
	}
}

/* The old syncer freed, a new one made with the failpoint `env` naming
 * the file `path`, which exists. The failpoints are read once (failpoint.h):
 * again here, once the old syncer's thread is gone. */
static struct syncer *with_failpoint(struct syncer *old, struct told *t, const char *env,
                                     const char *path)
{
	close(open(path, O_CREAT | O_WRONLY, 0600));
	setenv(env, path, 1);
	syncer_free(old);
	failpoint_init();
	return syncer_new(t->base, done, t, slow_checkpoint, NULL);
}

/* Run the loop for ms milliseconds, whatever it is told. */
static void loop_for(struct told *t, int ms)
{
	struct timeval tv = { 0, ms * 1000 };

	event_base_loopexit(t->base, &tv);
	while (!event_base_got_exit(t->base))
		event_base_dispatch(t->base);
}

/* One job id, malloc'ed (a flush asked takes it). */
static uint64_t *ids_of(uint64_t id)
{
	uint64_t *ids = malloc(sizeof *ids);

	if (ids)
		*ids = id;
	return ids;
}

int main(void)
{
	char dir[] = "/tmp/bf-syncer.XXXXXX";
	struct told t = { 0 };
	struct syncer *s;
	uint64_t *ids;
	int fd;

	t.base = event_base_new();
	if (!t.base || !mkdtemp(dir) || (fd = open(dir, O_RDONLY | O_DIRECTORY)) < 0) {
		printf("Bail out! no event base or temporary directory\n");
		return 1;
	}
	s = syncer_new(t.base, done, &t, slow_checkpoint, NULL);
	ok(s != NULL, "the thread starts");
	if (!s)
		return 1;

	/* A job's directory and script, as the spool has them. */
	if (mkdirat(fd, "7", 0700) < 0 || close(openat(fd, "7/script", O_WRONLY | O_CREAT, 0500)) < 0) {
		printf("Bail out! cannot make a job directory\n");
		return 1;
	}
	ok(syncer_spool(s, fd, ids_of(7), 1), "a flush of job 7 is asked");
	loop_until(&t, 1);
	ok(t.spool == 1 && t.spool_err == 0, "it is told once, in the loop, without error (%d, %s)",
	   t.spool, strerror(t.spool_err));
	t.spool = 0;
	ok(syncer_spool(s, fd, ids_of(8), 1), "a flush of job 8, which has no directory, is asked");
	loop_until(&t, 1);
	ok(t.spool == 1 && t.spool_err == ENOENT, "it is told with ENOENT (%s)", strerror(t.spool_err));
	t.spool = 0;
	ok(syncer_spool(s, fd, NULL, 0), "a flush of no job (the directory alone) is asked");
	loop_until(&t, 1);
	ok(t.spool == 1 && t.spool_err == 0, "it is told without error");

	/* A hold keeps the next one under way while we ask again. */
	{
		char hold[sizeof dir + 8];

		snprintf(hold, sizeof hold, "%s/hold", dir);
		s = with_failpoint(s, &t, "BACKFILLD_TEST_SYNC_HOLD", hold);
		ok(s && syncer_spool(s, fd, ids_of(7), 1), "with the hold, a flush is asked");
		ids = ids_of(7);
		ok(s && !syncer_spool(s, fd, ids, 1), "a second is refused while it is under way");
		free(ids);	/* (still ours: refused) */
		unlink(hold);
		syncer_spool_wait(s);
		ok(t.spool == 2, "a wait in the loop tells it at once (%d)", t.spool);
		t.spool = 0;
		loop_for(&t, 200);	/* (the thread's wakeup of the loop comes in it) */
		ok(t.spool == 0, "and it is not told again");
		unsetenv("BACKFILLD_TEST_SYNC_HOLD");
	}

	/* Checkpoints: on the thread; asked while one runs, one more at most. */
	syncer_checkpoint(s);
	syncer_checkpoint(s);
	syncer_checkpoint(s);
	loop_until(&t, 1);
	ok(t.ckpt == 1 && ckpt_runs == 1, "three asked at once run once (%d told, %d runs)", t.ckpt,
	   ckpt_runs);
	ok(!pthread_equal(ckpt_thread, pthread_self()), "on the syncer's thread, not the loop's");
	syncer_checkpoint(s);
	loop_until(&t, 2);
	ok(t.ckpt == 2 && ckpt_runs == 2, "asked again once told, it runs again (%d, %d)", t.ckpt,
	   ckpt_runs);

	/* A failing flush (the failpoint: EIO) is told with its errno. */
	{
		char fail[sizeof dir + 8];

		snprintf(fail, sizeof fail, "%s/fail", dir);
		s = with_failpoint(s, &t, "BACKFILLD_TEST_SYNC_FAIL", fail);
		t.spool = 0;
		ok(s && syncer_spool(s, fd, ids_of(7), 1), "a flush is asked where it fails");
		loop_until(&t, 3);
		ok(t.spool == 1 && t.spool_err == EIO, "it is told with EIO (%s)", strerror(t.spool_err));
		unlink(fail);
		unsetenv("BACKFILLD_TEST_SYNC_FAIL");
	}

	/* Freeing finishes what was asked (the checkpoint runs) and tells
	 * nothing after. */
	syncer_checkpoint(s);
	syncer_free(s);
	ok(ckpt_runs == 3, "freeing finishes the checkpoint asked (%d runs)", ckpt_runs);

	unlinkat(fd, "7/script", 0);
	unlinkat(fd, "7", AT_REMOVEDIR);
	close(fd);
	ok(rmdir(dir) == 0, "the temporary directory is removed");
	event_base_free(t.base);
	return tap_done();
}
