// SPDX-License-Identifier: GPL-2.0
/* Kernel records checked and read into one view (audit/record.h). */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "audit/record.h"

/* Do the @n bytes at @s end in a NUL (so reading them as a string stays inside them)? */
static bool nul_ended(const char *s, size_t n)
{
	return n > 0 && s[n - 1] == 0;
}

/* The fields every record type has beside its header, from @r into the view @v. */
#define VIEW_VERDICT(v, r)                                                                       \
	((v)->op = (r)->op, (v)->verdict = (r)->verdict, (v)->source = (r)->source,              \
	 (v)->rule = (r)->rule, (v)->err = (r)->err)

static int decode_file(const void *rec, size_t size, struct wd_rec_view *v)
{
	const struct wd_rec_file *r = rec;

	if (size < WD_REC_FILE_SIZE || r->path_len > size - WD_REC_FILE_SIZE ||
	    r->path_len > WD_PATH_MAX || !nul_ended(r->path, r->path_len))
		return -EINVAL;
	VIEW_VERDICT(v, r);
	v->flags = r->flags;
	v->access = r->access;
	v->dirfd = r->dirfd;
	v->arg = r->arg;
	v->path = r->path;
	return 0;
}

static int decode_syscall(const void *rec, size_t size, struct wd_rec_view *v)
{
	const struct wd_rec_syscall *r = rec;

	if (size < WD_REC_SYSCALL_SIZE || r->name_len > size - WD_REC_SYSCALL_SIZE ||
	    !nul_ended(r->name, r->name_len))
		return -EINVAL;
	VIEW_VERDICT(v, r);
	v->sysno = r->sysno;
	v->dirfd = -100; /* AT_FDCWD: a syscall record names no dirfd */
	v->path = r->name;
	return 0;
}

static int decode_sock(const void *rec, size_t size, struct wd_rec_view *v)
{
	const struct wd_rec_sock *r = rec;

	if (size < WD_REC_SOCK_SIZE || r->addr_len > size - WD_REC_SOCK_SIZE ||
	    r->addr_len > WD_SOCKADDR_MAX)
		return -EINVAL;
	VIEW_VERDICT(v, r);
	v->flags = r->flags;
	v->sysno = r->sysno;
	v->proto = r->proto;
	v->dirfd = r->fd;
	v->path = "";
	v->addr = r->addr;
	v->addr_len = r->addr_len;
	return 0;
}

int wd_rec_decode(const void *rec, size_t size, struct wd_rec_view *v)
{
	const struct wd_rec_hdr *h = rec;
	int err = -EINVAL;

	memset(v, 0, sizeof(*v));
	if (!rec || size < sizeof(*h) || h->size != size)
		return -EINVAL;
	v->h = h;
	v->type = h->type;
	switch (h->type) {
	case WD_EV_FILE:
	case WD_EV_EXEC:
		err = decode_file(rec, size, v);
		break;
	case WD_EV_SYSCALL:
		err = decode_syscall(rec, size, v);
		break;
	case WD_EV_NET:
		err = decode_sock(rec, size, v);
		break;
	}
	if (err)
		memset(v, 0, sizeof(*v));
	return err;
}
