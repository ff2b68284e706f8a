/* The cluster channels' frames (see chan.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "chan.h"

void chan_buf_free(struct chan_buf *b)
{
	free(b->p);
	*b = (struct chan_buf){ 0 };
}

size_t chan_pending(const struct chan_buf *b)
{
	return b->len - b->off;
}

/* Room for `more` bytes at the end; what was consumed is dropped first. */
static int reserve(struct chan_buf *b, size_t more)
{
	size_t cap;
	uint8_t *p;

	if (b->off > 0 && (b->off == b->len || b->off >= b->cap / 2)) {
		memmove(b->p, b->p + b->off, b->len - b->off);
		b->len -= b->off;
		b->off = 0;
	}
	if (b->len + more <= b->cap)
		return 0;
	for (cap = b->cap ? b->cap : 4096; cap < b->len + more; cap *= 2)
		;
	if (!(p = realloc(b->p, cap)))
		return -1;
	b->p = p;
	b->cap = cap;
	return 0;
}

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

int chan_put(struct chan_buf *b, uint8_t type, uint32_t stream, const void *data, size_t len)
{
	if (len > CHAN_MAX_FRAME - 5 || reserve(b, CHAN_HEADER + len) < 0)
		return -1;
	put_be32(b->p + b->len, (uint32_t)(5 + len));
	b->p[b->len + 4] = type;
	put_be32(b->p + b->len + 5, stream);
	if (len)
		memcpy(b->p + b->len + CHAN_HEADER, data, len);
	b->len += CHAN_HEADER + len;
	return 0;
}

int chan_take(struct chan_buf *b, struct chan_frame *f)
{
	size_t have = b->len - b->off;
	uint32_t flen;
	const uint8_t *p = b->p + b->off;

	if (have < 4)
		return 0;
	flen = get_be32(p);
	if (flen < 5 || flen > CHAN_MAX_FRAME)
		return -1;
	if (have < 4 + (size_t)flen)
		return 0;
	f->type = p[4];
	f->stream = get_be32(p + 5);
	f->data = p + CHAN_HEADER;
	f->len = flen - 5;
	b->off += 4 + (size_t)flen;
	return 1;
}

int chan_append(struct chan_buf *b, const void *data, size_t len)
{
	if (reserve(b, len) < 0)
		return -1;
	if (len)
		memcpy(b->p + b->len, data, len);
	b->len += len;
	return 0;
}

int chan_field(struct chan_buf *payload, const char *key, const char *value)
{
	size_t kl = strlen(key), vl = value ? strlen(value) : 0;

	if (reserve(payload, kl + vl + 2) < 0)
		return -1;
	memcpy(payload->p + payload->len, key, kl);
	payload->p[payload->len + kl] = '=';
	if (vl)
		memcpy(payload->p + payload->len + kl + 1, value, vl);
	payload->p[payload->len + kl + 1 + vl] = 0;
	payload->len += kl + vl + 2;
	return 0;
}

int chan_field_num(struct chan_buf *payload, const char *key, long long v)
{
	char num[32];

	snprintf(num, sizeof num, "%lld", v);
	return chan_field(payload, key, num);
}

bool chan_next_field(const struct chan_frame *f, size_t *pos, const char **key, size_t *klen,
                     const char **value)
{
	const char *s = (const char *)f->data + *pos, *nul, *eq;
	size_t left;

	if (*pos >= f->len)
		return false;
	left = f->len - *pos;
	if (!(nul = memchr(s, 0, left)) || !(eq = memchr(s, '=', (size_t)(nul - s))))
		return false;
	*key = s;
	*klen = (size_t)(eq - s);
	*value = eq + 1;
	*pos += (size_t)(nul - s) + 1;
	return true;
}

bool chan_key_is(const char *key, size_t klen, const char *want)
{
	return strlen(want) == klen && memcmp(key, want, klen) == 0;
}

const char *chan_get(const struct chan_frame *f, const char *want)
{
	size_t pos = 0, kl;
	const char *k, *v;

	while (chan_next_field(f, &pos, &k, &kl, &v))
		if (chan_key_is(k, kl, want))
			return v;
	return NULL;
}

bool chan_get_num(const struct chan_frame *f, const char *want, long long lo, long long hi,
                  long long *v)
{
	const char *s = chan_get(f, want);
	char *end;
	long long x;

	if (!s || !*s)
		return false;
	errno = 0;
	x = strtoll(s, &end, 10);
	if (errno || *end || x < lo || x > hi)
		return false;
	*v = x;
	return true;
}

ssize_t chan_fill(int fd, struct chan_buf *b, size_t most)
{
	size_t want = 65536;
	ssize_t n;

	if (chan_pending(b) >= most) {
		errno = EAGAIN;	/* full: read again once some is used */
		return -1;
	}
	if (reserve(b, want) < 0)
		return -1;
	do
		n = read(fd, b->p + b->len, b->cap - b->len);
	while (n < 0 && errno == EINTR);
	if (n > 0)
		b->len += (size_t)n;
	return n;
}

int chan_flush(int fd, struct chan_buf *b)
{
	while (b->off < b->len) {
		ssize_t n = write(fd, b->p + b->off, b->len - b->off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN ? 0 : -1;
		b->off += (size_t)n;
	}
	b->off = b->len = 0;
	return 0;
}
