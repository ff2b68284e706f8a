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
#include "syncer.h"

struct syncer {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t work;		/* the thread waits for it */
	pthread_cond_t finished;	/* syncer_spool_wait waits for it */
	int efd;			/* the thread tells the loop */
	struct event *ev;
	syncer_done_fn done;
	void *arg;
	int (*checkpoint)(void *ctx);
	void *ctx;
	const char *hold;		/* BACKFILLD_TEST_SYNC_HOLD */
	const char *fail;		/* BACKFILLD_TEST_SYNC_FAIL */
	/* Under mu: asked, under way (asked and not yet told), finished. */
	bool quit;
	int spool_fd;			/* asked: >= 0 */
	bool spool_busy, spool_finished;
	int spool_err;
	bool ckpt_asked, ckpt_busy, ckpt_finished;
	int ckpt_rc;
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

static void *run(void *arg)
{
	struct syncer *s = arg;
	const uint64_t one = 1;

	pthread_mutex_lock(&s->mu);
	for (;;) {
		while (!s->quit && s->spool_fd < 0 && !s->ckpt_asked)
			pthread_cond_wait(&s->work, &s->mu);
		if (s->spool_fd >= 0) {
			int fd = s->spool_fd, err = 0;

			s->spool_fd = -1;
			pthread_mutex_unlock(&s->mu);
			test_hold(s->hold);
			if (s->fail && access(s->fail, F_OK) == 0)
				err = EIO;	/* the failpoint below */
			else if (syncfs(fd) < 0)
				err = errno;
			pthread_mutex_lock(&s->mu);
			s->spool_err = err;
			s->spool_finished = true;
		} else if (s->ckpt_asked) {
			int rc;

			s->ckpt_asked = false;
			pthread_mutex_unlock(&s->mu);
			rc = s->checkpoint(s->ctx);
			pthread_mutex_lock(&s->mu);
			s->ckpt_rc = rc;
			s->ckpt_finished = true;
		} else {
			break;	/* quit, and nothing left */
		}
		pthread_cond_broadcast(&s->finished);
		/* (A full counter cannot happen: the loop reads it each turn.) */
		if (write(s->efd, &one, sizeof one) < 0) {}
	}
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

/* What finished, told in the loop; under no lock while `done` runs, which
 * may ask for more. */
static void tell(struct syncer *s)
{
	bool spool, ckpt;
	int spool_err, ckpt_rc;

	pthread_mutex_lock(&s->mu);
	spool = s->spool_finished;
	ckpt = s->ckpt_finished;
	spool_err = s->spool_err;
	ckpt_rc = s->ckpt_rc;
	if (spool)
		s->spool_finished = s->spool_busy = false;
	if (ckpt)
		s->ckpt_finished = s->ckpt_busy = false;
	pthread_mutex_unlock(&s->mu);
	if (spool)
		s->done(s->arg, SYNC_SPOOL, spool_err);
	if (ckpt)
		s->done(s->arg, SYNC_CHECKPOINT, ckpt_rc);
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
		.checkpoint = checkpoint, .ctx = ctx, .hold = getenv("BACKFILLD_TEST_SYNC_HOLD"), .fail = getenv("BACKFILLD_TEST_SYNC_FAIL") };
	if ((s->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0 ||
	    !(s->ev = event_new(base, s->efd, EV_READ | EV_PERSIST, event_cb, s)) ||
	    event_add(s->ev, NULL) < 0)
		goto fail;
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->work, NULL);
	pthread_cond_init(&s->finished, NULL);
	/* The thread starts with every signal blocked: they stay the loop's. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&s->thread, NULL, run, s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		pthread_cond_destroy(&s->finished);
		pthread_cond_destroy(&s->work);
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
	pthread_cond_signal(&s->work);
	pthread_mutex_unlock(&s->mu);
	pthread_join(s->thread, NULL);
	event_free(s->ev);
	close(s->efd);
	pthread_cond_destroy(&s->finished);
	pthread_cond_destroy(&s->work);
	pthread_mutex_destroy(&s->mu);
	free(s);
}

bool syncer_spool(struct syncer *s, int fd)
{
	bool asked = false;

	pthread_mutex_lock(&s->mu);
	if (!s->spool_busy) {
		s->spool_busy = asked = true;
		s->spool_fd = fd;
		pthread_cond_signal(&s->work);
	}
	pthread_mutex_unlock(&s->mu);
	return asked;
}

void syncer_spool_wait(struct syncer *s)
{
	pthread_mutex_lock(&s->mu);
	while (s->spool_busy && !s->spool_finished)
		pthread_cond_wait(&s->finished, &s->mu);
	pthread_mutex_unlock(&s->mu);
	tell(s);
}

void syncer_checkpoint(struct syncer *s)
{
	if (!s->checkpoint)
		return;
	pthread_mutex_lock(&s->mu);
	if (!s->ckpt_busy) {
		s->ckpt_busy = s->ckpt_asked = true;
		pthread_cond_signal(&s->work);
	}
	pthread_mutex_unlock(&s->mu);
}
