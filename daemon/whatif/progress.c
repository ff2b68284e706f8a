/* The progress line (see progress.h). */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "progress.h"

enum { WIDTH = 40, EVERY_MS = 200 };

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void progress_start(struct progress *p, bool on, const char *unit)
{
	p->on = on;
	p->unit = unit;
	p->t0_ms = now_ms();
	p->shown_ms = -1;
}

void progress_left(char *buf, size_t len, int64_t elapsed_ms, uint64_t done, uint64_t total)
{
	double left;

	*buf = '\0';
	if (done == 0 || done >= total || elapsed_ms < 500)
		return;
	left = (double)elapsed_ms / 1000.0 * (double)(total - done) / (double)done;
	if (left >= 3600)
		snprintf(buf, len, ", %d:%02d:%02d left", (int)(left / 3600),
		         (int)(left / 60) % 60, (int)left % 60);
	else if (left >= 60)
		snprintf(buf, len, ", %d:%02d left", (int)(left / 60), (int)left % 60);
	else
		snprintf(buf, len, ", %d s left", (int)(left + 0.999));
}

static void draw(struct progress *p, uint64_t done, uint64_t total, int64_t t)
{
	size_t fill = total ? (size_t)(done * WIDTH / total) : WIDTH;
	char bar[WIDTH + 1], left[48];

	if (fill > WIDTH)
		fill = WIDTH;
	memset(bar, '#', fill);
	memset(bar + fill, '.', WIDTH - fill);
	bar[WIDTH] = '\0';
	progress_left(left, sizeof left, t - p->t0_ms, done, total);
	/* (the blanks wipe a longer "left" drawn before) */
	fprintf(stderr, "\r[%s] %llu/%llu %s%s    ", bar, (unsigned long long)done,
	        (unsigned long long)total, p->unit, left);
	fflush(stderr);
	p->shown_ms = t;
}

void progress_show(struct progress *p, uint64_t done, uint64_t total)
{
	int64_t t;

	if (!p->on)
		return;
	t = now_ms();
	if (p->shown_ms >= 0 && t - p->shown_ms < EVERY_MS)
		return;
	draw(p, done, total, t);
}

void progress_end(struct progress *p, uint64_t done, uint64_t total, bool keep)
{
	if (!p->on)
		return;
	if (keep) {
		draw(p, done, total, now_ms());
		fputc('\n', stderr);
	} else {
		fprintf(stderr, "\r%*s\r", WIDTH + 64, "");
	}
	fflush(stderr);
}
