/* The file system's slow work on a thread of its own: see syncer.h. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>
#include "failpoint.h"
#include "spool.h"
#include "syncer.h"

/* One kind of work (W_SPOOL, W_CKPT): asked, under way
 * (asked and not yet told), finished, and its result. At most one of each
 * kind is under way: the loop asks again after it is told. */
enum { W_SPOOL, W_CKPT, W_KINDS };

struct work {
	bool asked, busy, finished;
	int result;
};

struct syncer {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t wake;		/* the thread waits for it */
	pthread_cond_t finished;	/* syncer_spool_wait waits for it */
	int efd;			/* the thread tells the loop */
	struct event *ev;
	syncer_done_fn done;
	void *arg;
	int (*checkpoint)(void *ctx);
	void *ctx;
	const char *hold;		/* FP_SYNC_HOLD's path, or NULL */
	const char *fail;		/* FP_SYNC_FAIL's path, or NULL */
	/* Under mu. */
	bool quit;
	int spool_fd;			/* the spool's jobs directory */
	uint64_t *ids;			/* the jobs to make durable there */
	size_t nids;
	struct work w[W_KINDS];
};

/* Failpoints for the tests: while the file BACKFILLD_TEST_SYNC_HOLD names
 * exists, a flush waits before it begins (looked at every 20 ms), so that
 * a test sees the loop serve, a stop or a crash while one is under way;
 * while the file BACKFILLD_TEST_SYNC_FAIL names exists, a flush fails
 * (EIO), as on a failing disk. */
static void test_hold(const char *path)
{
	while (path && access(path, F_OK) == 0)
		nanosleep(&(struct timespec){ 0, 20000000 }, NULL);
}

/* On the thread, under no lock: a flush gives 0 or its errno, a
 * checkpoint 0 or -1. A flush syncs the batch's jobs one by one, not the
 * whole file system (syncfs), which would wait for whatever anyone else
 * is writing there. */
static int do_work(struct syncer *s, int k, int fd, const uint64_t *ids, size_t n)
{
	if (k == W_CKPT)
		return s->checkpoint(s->ctx);
	test_hold(s->hold);
	if (s->fail && access(s->fail, F_OK) == 0)
		return EIO;	/* the failpoint above */
	return spool_jobs_sync(fd, ids, n);
}

static void *run(void *arg)
{
	struct syncer *s = arg;
	const uint64_t one = 1;

	pthread_mutex_lock(&s->mu);
	for (;;) {
		int k, fd, result;
		uint64_t *ids = NULL;
		size_t nids = 0;

		while (!s->quit && !s->w[W_SPOOL].asked && !s->w[W_CKPT].asked)
			pthread_cond_wait(&s->wake, &s->mu);
		/* A flush first: commits wait for it. */
		k = s->w[W_SPOOL].asked ? W_SPOOL : s->w[W_CKPT].asked ? W_CKPT : -1;
		if (k < 0)
			break;	/* quit, and nothing left */
		s->w[k].asked = false;
		fd = s->spool_fd;
		if (k == W_SPOOL) {
			ids = s->ids;
			nids = s->nids;
			s->ids = NULL;
			s->nids = 0;
		}
		pthread_mutex_unlock(&s->mu);
		result = do_work(s, k, fd, ids, nids);
		free(ids);
		pthread_mutex_lock(&s->mu);
		s->w[k].result = result;
		s->w[k].finished = true;
		pthread_cond_broadcast(&s->finished);
		/* (A full counter cannot happen: the loop reads it each turn.) */
		if (write(s->efd, &one, sizeof one) < 0) {}
	}
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

/* Ask for work of kind k unless one is under way; under mu. */
static bool ask_locked(struct syncer *s, int k)
{
	if (s->w[k].busy)
		return false;
	s->w[k].busy = s->w[k].asked = true;
	pthread_cond_signal(&s->wake);
	return true;
}

/* What finished, told in the loop; under no lock while `done` runs, which
 * may ask for more. */
static void tell(struct syncer *s)
{
	static const unsigned what[W_KINDS] = { [W_SPOOL] = SYNC_SPOOL, [W_CKPT] = SYNC_CHECKPOINT };
	struct work w[W_KINDS];

	pthread_mutex_lock(&s->mu);
	for (int k = 0; k < W_KINDS; k++) {
		w[k] = s->w[k];
		if (w[k].finished)
			s->w[k].finished = s->w[k].busy = false;
	}
	pthread_mutex_unlock(&s->mu);
	for (int k = 0; k < W_KINDS; k++)
		if (w[k].finished)
			s->done(s->arg, what[k], w[k].result);
}

static void event_cb(evutil_socket_t fd, short what, void *arg)
{
	uint64_t n;

	(void)what;
	if (read(fd, &n, sizeof n) < 0) {}
	tell(arg);
}

struct syncer *syncer_new(struct event_base *base, syncer_done_fn done, void *arg,
                          int (*checkpoint)(void *ctx), void *ctx)
{
	struct syncer *s = calloc(1, sizeof *s);
	sigset_t all, old;
	int rc;

	if (!s)
		return NULL;
	*s = (struct syncer){ .efd = -1, .spool_fd = -1, .done = done, .arg = arg,
		.checkpoint = checkpoint, .ctx = ctx, .hold = failpoint_path(FP_SYNC_HOLD),
		.fail = failpoint_path(FP_SYNC_FAIL) };
	if ((s->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0 ||
	    !(s->ev = event_new(base, s->efd, EV_READ | EV_PERSIST, event_cb, s)) ||
	    event_add(s->ev, NULL) < 0)
		goto fail;
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->wake, NULL);
	pthread_cond_init(&s->finished, NULL);
	/* The thread starts with every signal blocked: they stay the loop's. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&s->thread, NULL, run, s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		pthread_cond_destroy(&s->finished);
		pthread_cond_destroy(&s->wake);
		pthread_mutex_destroy(&s->mu);
		errno = rc;
		goto fail;
	}
	return s;
fail:
	rc = errno;
	if (s->ev)
		event_free(s->ev);
	if (s->efd >= 0)
		close(s->efd);
	free(s);
	errno = rc;
	return NULL;
}

void syncer_free(struct syncer *s)
{
	if (!s)
		return;
	pthread_mutex_lock(&s->mu);
	s->quit = true;
	pthread_cond_signal(&s->wake);
	pthread_mutex_unlock(&s->mu);
	pthread_join(s->thread, NULL);
	event_free(s->ev);
	close(s->efd);
	pthread_cond_destroy(&s->finished);
	pthread_cond_destroy(&s->wake);
	pthread_mutex_destroy(&s->mu);
	free(s->ids);
	free(s);
}

bool syncer_spool(struct syncer *s, int fd, uint64_t *ids, size_t n)
{
	bool asked;

	pthread_mutex_lock(&s->mu);
	if ((asked = ask_locked(s, W_SPOOL))) {
		s->spool_fd = fd;
		s->ids = ids;
		s->nids = n;
	}
	pthread_mutex_unlock(&s->mu);
	return asked;
}

void syncer_spool_wait(struct syncer *s)
{
	pthread_mutex_lock(&s->mu);
	while (s->w[W_SPOOL].busy && !s->w[W_SPOOL].finished)
		pthread_cond_wait(&s->finished, &s->mu);
	pthread_mutex_unlock(&s->mu);
	tell(s);
}

void syncer_checkpoint(struct syncer *s)
{
	if (!s->checkpoint)
		return;
	pthread_mutex_lock(&s->mu);
	ask_locked(s, W_CKPT);
	pthread_mutex_unlock(&s->mu);
}
