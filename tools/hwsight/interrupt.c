/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <signal.h>

#include "interrupt.h"

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

void tool_catch_interrupts(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

bool tool_interrupted(void)
{
	return interrupted;
}
