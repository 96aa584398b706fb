/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The main thread, for hwsd_assert_main() (contract.h). On Linux the
 * initial thread's id is the process id, also in the child that detach()
 * forks, so there is nothing to record and nothing to forget to record.
 */
#include <unistd.h>

#include "contract.h"

bool hwsd_on_main_thread(void)
{
	return gettid() == getpid();
}
