/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef HWS_TEST_TASK_H
#define HWS_TEST_TASK_H

/*
 * A small test harness in the spirit of libuv's test/task.h.
 *
 * A test binary defines its cases with TEST(name) { ... } (or
 * TEST_TIMEOUT(name, seconds) for a slow one) and ends with
 *
 *	int main(int argc, char **argv) { return hws_test_main(argc, argv); }
 *
 * "prog <case>" runs one case in this process, "prog --list" lists the
 * cases, "prog" alone runs every case in a child process of its own.
 * tests/unit/CMakeLists.txt reads the TEST lines of each source to register
 * every case with ctest, so the list of cases exists in one place only.
 *
 * The ASSERT_* macros print the file, the line, the expression and both
 * values, then abort(), which works from any thread, workers included.
 */

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define HWS_TEST_DEFAULT_TIMEOUT 60
#define HWS_TEST_MAX_CASES 256

struct hws_test_case {
	const char *name;
	void (*fn)(void);
	int timeout; /* seconds, before HWS_TEST_TIMEOUT_SCALE */
};

static struct hws_test_case hws_test_cases[HWS_TEST_MAX_CASES];
static int hws_test_ncases;
static const char *hws_test_current = "(none)";

static inline void hws_test_register(const char *name, void (*fn)(void), int timeout)
{
	if (hws_test_ncases == HWS_TEST_MAX_CASES) {
		fprintf(stderr, "task.h: more than %d cases\n", HWS_TEST_MAX_CASES);
		abort();
	}
	hws_test_cases[hws_test_ncases++] = (struct hws_test_case){ name, fn, timeout };
}

/*
 * The seconds argument is also read by CMake (TEST_TIMEOUT(name, N) must
 * stay on one line) to set the ctest TIMEOUT of the case.
 */
#define TEST_TIMEOUT(name, seconds)                                           \
	static void test_##name(void);                                        \
	__attribute__((constructor)) static void hws_test_reg_##name(void)    \
	{                                                                     \
		hws_test_register(#name, test_##name, (seconds));             \
	}                                                                     \
	static void test_##name(void)
#define TEST(name) TEST_TIMEOUT(name, HWS_TEST_DEFAULT_TIMEOUT)

__attribute__((format(printf, 3, 4), noreturn))
static inline void hws_test_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s:%d: test '%s' failed: ", file, line, hws_test_current);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
	abort();
}

#define FAIL(...) hws_test_fail(__FILE__, __LINE__, __VA_ARGS__)

#define HWS_ASSERT_CMP(type, fmt, a, op, b)                                   \
	do {                                                                  \
		type hws_a_ = (type)(a);                                      \
		type hws_b_ = (type)(b);                                      \
		if (!(hws_a_ op hws_b_))                                      \
			hws_test_fail(__FILE__, __LINE__,                     \
				      "ASSERT(%s %s %s): left " fmt           \
				      ", right " fmt,                         \
				      #a, #op, #b, hws_a_, hws_b_);           \
	} while (0)

/* Signed integers (and bool), compared as int64_t. */
#define ASSERT_EQ(a, b) HWS_ASSERT_CMP(int64_t, "%" PRId64, a, ==, b)
#define ASSERT_NE(a, b) HWS_ASSERT_CMP(int64_t, "%" PRId64, a, !=, b)
#define ASSERT_GE(a, b) HWS_ASSERT_CMP(int64_t, "%" PRId64, a, >=, b)
#define ASSERT_GT(a, b) HWS_ASSERT_CMP(int64_t, "%" PRId64, a, >, b)
#define ASSERT_LE(a, b) HWS_ASSERT_CMP(int64_t, "%" PRId64, a, <=, b)
#define ASSERT_LT(a, b) HWS_ASSERT_CMP(int64_t, "%" PRId64, a, <, b)

/* Unsigned long (jiffies and such), compared as unsigned long. */
#define ASSERT_UL_EQ(a, b) HWS_ASSERT_CMP(unsigned long, "%lu", a, ==, b)
#define ASSERT_UL_NE(a, b) HWS_ASSERT_CMP(unsigned long, "%lu", a, !=, b)
#define ASSERT_UL_GE(a, b) HWS_ASSERT_CMP(unsigned long, "%lu", a, >=, b)
#define ASSERT_UL_LE(a, b) HWS_ASSERT_CMP(unsigned long, "%lu", a, <=, b)

#define ASSERT_TRUE(x)                                                        \
	do {                                                                  \
		if (!(x))                                                     \
			hws_test_fail(__FILE__, __LINE__,                     \
				      "ASSERT_TRUE(%s): it is false", #x);    \
	} while (0)
#define ASSERT_FALSE(x)                                                       \
	do {                                                                  \
		if (x)                                                        \
			hws_test_fail(__FILE__, __LINE__,                     \
				      "ASSERT_FALSE(%s): it is true", #x);    \
	} while (0)

#define ASSERT_PTR_EQ(a, b) HWS_ASSERT_CMP(const void *, "%p", a, ==, b)
#define ASSERT_PTR_NE(a, b) HWS_ASSERT_CMP(const void *, "%p", a, !=, b)
#define ASSERT_NULL(p)      HWS_ASSERT_CMP(const void *, "%p", p, ==, NULL)
#define ASSERT_NOT_NULL(p)  HWS_ASSERT_CMP(const void *, "%p", p, !=, NULL)

#define ASSERT_STR_EQ(a, b)                                                   \
	do {                                                                  \
		const char *hws_a_ = (a), *hws_b_ = (b);                      \
		if (strcmp(hws_a_, hws_b_) != 0)                              \
			hws_test_fail(__FILE__, __LINE__,                     \
				      "ASSERT_STR_EQ(%s, %s): left \"%s\", "  \
				      "right \"%s\"", #a, #b, hws_a_, hws_b_); \
	} while (0)

/*
 * The watchdog turns a hang into a failure that names the case, rather than
 * leaving it to ctest's kill. HWS_TEST_TIMEOUT_SCALE (set by CMake for
 * sanitizer builds) multiplies every timeout. It blocks every signal so that
 * tests about signal delivery see only the threads they reason about.
 */
static inline int hws_test_timeout_scale(void)
{
	const char *s = getenv("HWS_TEST_TIMEOUT_SCALE");
	int v = s ? atoi(s) : 1;

	return v > 0 ? v : 1;
}

static inline void *hws_test_watchdog(void *arg)
{
	int seconds = *(const int *)arg;
	struct timespec deadline;

	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += seconds;
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, NULL) == EINTR)
		;
	fprintf(stderr, "test '%s' timed out after %d s\n", hws_test_current, seconds);
	fflush(stderr);
	abort();
	return NULL;
}

static inline int hws_test_run_one(const struct hws_test_case *c)
{
	static int seconds;
	sigset_t all, old;
	pthread_t wd;

	hws_test_current = c->name;
	seconds = c->timeout * hws_test_timeout_scale();
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	if (pthread_create(&wd, NULL, hws_test_watchdog, &seconds) != 0) {
		fprintf(stderr, "cannot start the watchdog thread\n");
		return 1;
	}
	pthread_detach(wd);
	pthread_sigmask(SIG_SETMASK, &old, NULL);

	c->fn();
	printf("ok - %s\n", c->name);
	fflush(stdout);
	return 0;
}

static inline int hws_test_run_all(const char *self)
{
	int failed = 0;

	for (int i = 0; i < hws_test_ncases; i++) {
		const char *name = hws_test_cases[i].name;
		int status;
		pid_t pid = fork();

		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (pid == 0) {
			execl("/proc/self/exe", self, name, (char *)NULL);
			perror("exec");
			_exit(127);
		}
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
			printf("not ok - %s\n", name);
			failed++;
		}
	}
	printf("%d of %d cases failed\n", failed, hws_test_ncases);
	return failed ? 1 : 0;
}

static inline int hws_test_main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 1)
		return hws_test_run_all(argv[0]);
	if (argc == 2 && strcmp(argv[1], "--list") == 0) {
		for (int i = 0; i < hws_test_ncases; i++)
			printf("%s\n", hws_test_cases[i].name);
		return 0;
	}
	if (argc == 2 && argv[1][0] != '-') {
		for (int i = 0; i < hws_test_ncases; i++)
			if (strcmp(argv[1], hws_test_cases[i].name) == 0)
				return hws_test_run_one(&hws_test_cases[i]);
		fprintf(stderr, "%s: no case named '%s'; --list shows them\n", argv[0], argv[1]);
		return 2;
	}
	fprintf(stderr, "usage: %s [--list | CASE]\n", argv[0]);
	return 2;
}

#endif
