/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWS_TEST_TESTBED_H
#define HWS_TEST_TESTBED_H

/* What every task.h test against a live umockdev testbed starts with. */

#include <umockdev.h>

#include "task.h"

/* A new testbed; the case must run under umockdev-wrapper. */
static inline UMockdevTestbed *testbed(void)
{
	UMockdevTestbed *tb = umockdev_testbed_new();

	ASSERT_TRUE(umockdev_in_mock_environment());
	ASSERT_NOT_NULL(tb);
	return tb;
}

/* Add devices written in umockdev's record format. */
static inline void add(UMockdevTestbed *tb, const char *description)
{
	GError *error = NULL;

	if (!umockdev_testbed_add_from_string(tb, description, &error))
		FAIL("testbed: %s", error->message);
}

#endif
