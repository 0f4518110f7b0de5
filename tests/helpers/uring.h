/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One io_uring operation through the raw syscalls, for the test helpers that try io_uring's
 * path around a rule (wd-escape, wd-net): liburing is not needed for one submission.
 */
#ifndef WD_TEST_URING_H
#define WD_TEST_URING_H

#include <errno.h>
#include <linux/io_uring.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/*
 * A ring of one entry, @prep filling its submission from @arg, submitted and waited for:
 * 0 with the operation's result in @res, or -errno of the ring itself (io_uring_setup refused).
 */
static inline int wd_uring_one(void (*prep)(struct io_uring_sqe *, const void *),
			       const void *arg, int *res)
{
	struct io_uring_params p;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqe;
	unsigned int *sq_tail, *sq_array, *cq_head;
	void *sq, *cq;
	int fd;

	memset(&p, 0, sizeof(p));
	fd = (int)syscall(SYS_io_uring_setup, 1, &p);
	if (fd < 0)
		return -errno;
	sq = mmap(NULL, p.sq_off.array + p.sq_entries * sizeof(unsigned int),
		  PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_SQ_RING);
	cq = mmap(NULL, p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe),
		  PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_CQ_RING);
	sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || sqes == MAP_FAILED)
		return -errno;
	sq_tail = (unsigned int *)((char *)sq + p.sq_off.tail);
	sq_array = (unsigned int *)((char *)sq + p.sq_off.array);
	cq_head = (unsigned int *)((char *)cq + p.cq_off.head);
	memset(&sqes[0], 0, sizeof(sqes[0]));
	prep(&sqes[0], arg);
	sq_array[0] = 0;
	__atomic_store_n(sq_tail, *sq_tail + 1, __ATOMIC_RELEASE);
	if (syscall(SYS_io_uring_enter, fd, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0) < 0)
		return -errno;
	cqe = (struct io_uring_cqe *)((char *)cq + p.cq_off.cqes);
	*res = cqe[*cq_head & *(unsigned int *)((char *)cq + p.cq_off.ring_mask)].res;
	close(fd);
	return 0;
}

#endif
