/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWSD_CONTRACT_H
#define HWSD_CONTRACT_H

/*
 * The field tags of hwsightd.h (and of the modules' own structures) as
 * assertions, so that a debug build checks what the tags say. With
 * NDEBUG they compile to nothing and evaluate nothing.
 *
 *   hwsd_assert_on(wq)          P:, C: the caller runs as work on @wq;
 *   hwsd_assert_main()          M: the caller is the main thread;
 *   hwsd_assert_on_or_main(wq)  a job's field, touched by the job's own
 *                               work or by the main thread, which owns
 *                               the fields of a job it stopped (or has
 *                               not started yet).
 *
 * The last cannot tell a stopped job from a running one: it catches the
 * wrong thread (an HTTP thread, another queue), not the wrong moment.
 */

#include <assert.h>
#include <stdbool.h>

#include <hwsight/workqueue.h>

#define hwsd_assert_on(wq) assert((wq) && hws_workqueue_current() == (wq))
#define hwsd_assert_main() assert(hwsd_on_main_thread())
#define hwsd_assert_on_or_main(wq) \
	assert(((wq) && hws_workqueue_current() == (wq)) || hwsd_on_main_thread())

/* Is the caller the process's initial thread, the one that runs main()
 * and the sd-event loop? */
bool hwsd_on_main_thread(void);

#endif
