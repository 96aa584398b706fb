/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The fast reader's poll as a batch: every pread() of a poll goes into one
 * io_uring submission, and the poll costs one system call instead of one
 * per value. sysfs files cannot be read without blocking, so the kernel
 * runs the reads on its io-wq workers; they are the same reads, at offset
 * 0, with the driver's show() run again for each.
 *
 * Where io_uring is not available (an old kernel, a seccomp filter, the
 * io_uring_disabled sysctl) the context falls back to plain pread().
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <liburing.h>

#include "sensors/sensors-internal.h"

#define BATCH_DEPTH 128

struct pending {
	struct hws__chip *chip;
	uint32_t f, i;
};

struct hws__batch {
	struct io_uring ring;
	struct pending pending[BATCH_DEPTH];
	unsigned n;
	int ok;
};

int hws__batch_new(struct hws__batch **ret)
{
	struct hws__batch *b;
	int r;

	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	/* Completions are reaped by the one thread that submits: let the
	 * kernel defer their work to that wait instead of interrupting. */
	r = io_uring_queue_init(BATCH_DEPTH, &b->ring, IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN);
	if (r == -EINVAL)
		r = io_uring_queue_init(BATCH_DEPTH, &b->ring, 0);
	if (r < 0) {
		free(b);
		return r;
	}
	/* The reads take the driver's lock one after the other anyway: one
	 * kernel worker does them all, without waking a crowd per poll. */
	io_uring_register_iowq_max_workers(&b->ring, (unsigned[2]){ 1, 1 });
	*ret = b;
	return 0;
}

void hws__batch_free(struct hws__batch *b)
{
	if (!b)
		return;
	io_uring_queue_exit(&b->ring);
	free(b);
}

static void store(struct hws__chip *chip, uint32_t f, uint32_t i, int r, double v, int *ok)
{
	struct hws_subfeature *sub = &chip->pub.features[f].subfeatures[i];

	r = hws__attr_error(chip, r);
	if (r == -ENODEV) {
		chip->pub.present = false; /* closed by the caller, after the batch */
		return;
	}
	sub->error = r < 0 ? r : 0;
	if (r == 0) {
		sub->value = v;
		(*ok)++;
	}
}

/* Submit what is queued, wait for all of it, and finish every value. */
static int flush(struct hws__batch *b)
{
	struct io_uring_cqe *cqe;
	unsigned done = 0;
	int r;

	if (!b->n)
		return 0;
	r = io_uring_submit_and_wait(&b->ring, b->n);
	if (r < 0 && r != -EINTR)
		return r;
	while (done < b->n) {
		struct pending *p;
		double v = 0;

		r = io_uring_wait_cqe(&b->ring, &cqe);
		if (r == -EINTR)
			continue;
		if (r < 0)
			return r;
		p = &b->pending[cqe->user_data];
		r = cqe->res;
		io_uring_cqe_seen(&b->ring, cqe);
		done++;
		if (r >= 0)
			r = hws__finish_value(p->chip, p->f, p->i, (size_t)r, &v);
		store(p->chip, p->f, p->i, r, v, &b->ok);
	}
	b->n = 0;
	return 0;
}

int hws__batch_read(struct hws__batch *b, struct hws__chip **chips, size_t n_chips)
{
	int r;

	b->ok = 0;
	b->n = 0;
	for (size_t c = 0; c < n_chips; c++) {
		struct hws__chip *chip = chips[c];
		bool settings = chip->read_settings;

		if (!chip->pub.present)
			continue;
		for (uint32_t f = 0; f < chip->pub.n_features && chip->pub.present; f++) {
			struct hws_feature *feature = &chip->pub.features[f];

			for (uint32_t i = 0; i < feature->n_subfeatures && chip->pub.present; i++) {
				struct hws__sub_priv *sp = &chip->features[f].subs[i];
				struct io_uring_sqe *sqe;
				double v;
				int fd;

				if (!settings && !(feature->subfeatures[i].flags & HWS_SUB_LIVE))
					continue;
				if (hws__needs_libsensors(chip, f, i)) {
					r = hws__libsensors_read(chip, f, i, &v);
					store(chip, f, i, r, v, &b->ok);
					continue;
				}
				fd = hws__attr_fd(chip, f, i);
				if (fd < 0) {
					store(chip, f, i, fd, 0, &b->ok);
					continue;
				}
				if (b->n == BATCH_DEPTH && (r = flush(b)) < 0)
					return r;
				sqe = io_uring_get_sqe(&b->ring);
				if (!sqe)
					return -EBUSY; /* cannot happen: the ring was flushed */
				io_uring_prep_read(sqe, fd, sp->raw, HWS_RAW_READ, 0);
				sqe->flags |= IOSQE_ASYNC;
				sqe->user_data = b->n;
				b->pending[b->n++] = (struct pending){ chip, f, i };
			}
		}
		chip->settings_read = chip->settings_read || chip->pub.present;
	}
	r = flush(b);
	return r < 0 ? r : b->ok;
}
