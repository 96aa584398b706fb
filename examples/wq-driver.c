/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * wq-driver [-n SECONDS] - a hardware-monitor driver in the shape the Linux
 * 2.6.20 work_struct conversion gave drivers, running on libhwsight: work
 * items live inside the chip and handlers find it with container_of().
 * Two simulated chips poll on a freezeable queue; alarms travel to a
 * reporter on the default queue in a _NAR item; halfway through, the poll
 * queue is frozen and thawed as around a suspend; then the chips go away.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <hwsight/workqueue.h>

struct alarm {
	int temp;		/* m°C */
	unsigned long when;	/* jiffies */
};

struct chip {
	const char *name;
	struct workqueue_struct *wq;	/* where the poll runs */
	int temp, step, limit;		/* simulated sensor, in m°C */
	atomic_int polls;		/* read by main() while the poll runs */
	struct delayed_work worker;	/* the self-rearming poll */
	struct work_struct alarm_work;	/* _NAR: owns @alarm while pending */
	struct alarm alarm;
	int alarms_raised, alarms_reported;
};

static unsigned long start;	/* jiffies at start, for the log */

/* Handlers on several threads print: keep stamp and text on one line. */
static void say(const char *fmt, ...)
{
	unsigned int ms = jiffies_to_msecs(jiffies - start);
	va_list ap;

	va_start(ap, fmt);
	flockfile(stdout);
	printf("%3u.%03u s  ", ms / 1000, ms % 1000);
	vprintf(fmt, ap);
	putchar('\n');
	funlockfile(stdout);
	va_end(ap);
}

/* Runs on an "events" worker, concurrently with the chip's next poll. */
static void chip_report_alarm(struct work_struct *work)
{
	struct chip *chip = container_of(work, struct chip, alarm_work);
	struct alarm a = chip->alarm;

	chip->alarms_reported++;
	/* The data is copied: let the poll fill in the next alarm. */
	work_release(work);

	say("%s: ALARM %d.%d C over the %d C limit (%u ms ago)", chip->name,
	    a.temp / 1000, a.temp % 1000 / 100, chip->limit / 1000,
	    jiffies_to_msecs(jiffies - a.when));
}

static void chip_raise_alarm(struct chip *chip)
{
	/* While alarm_work is pending, the reporter owns chip->alarm. Only
	 * this poll queues it, so the test cannot go stale before we do. */
	if (work_pending(&chip->alarm_work)) {
		say("%s: last alarm not reported yet; keeping it", chip->name);
		return;
	}
	chip->alarm = (struct alarm){ .temp = chip->temp, .when = jiffies };
	chip->alarms_raised++;
	schedule_work(&chip->alarm_work);
}

static void chip_poll(struct work_struct *work)
{
	struct chip *chip = container_of(work, struct chip, worker.work);
	unsigned long delay;

	/* Stands in for a register read: a ramp between 44 and 56 degrees. */
	chip->temp += chip->step;
	if (chip->temp >= 56000 || chip->temp <= 44000)
		chip->step = -chip->step;
	atomic_fetch_add(&chip->polls, 1);
	if (chip->temp > chip->limit)
		chip_raise_alarm(chip);

	/* A 1 s poll need not be exact: rounded, both chips (and any other
	 * slow poller) expire on one tick and the process wakes once. */
	delay = round_jiffies_relative(HZ);
	say("%s: %d.%d C, next poll at %u ms", chip->name, chip->temp / 1000,
	    chip->temp % 1000 / 100, jiffies_to_msecs(jiffies + delay - start));
	queue_delayed_work(chip->wq, &chip->worker, delay);
}

static struct chip *chip_probe(const char *name, struct workqueue_struct *wq, int temp, int step)
{
	struct chip *chip = malloc(sizeof(*chip));

	if (!chip)
		return NULL;
	*chip = (struct chip){ .name = name, .wq = wq, .temp = temp, .step = step, .limit = 50000 };
	INIT_DELAYED_WORK(&chip->worker, chip_poll);
	INIT_WORK_NAR(&chip->alarm_work, chip_report_alarm);
	queue_delayed_work(wq, &chip->worker, 0);
	return chip;
}

static int chip_remove(struct chip *chip)
{
	/* Not cancel_delayed_work(): it would not wait for a running poll,
	 * which then re-arms itself. The poll raises alarms, so it stops
	 * first; then the last report must be done with the chip. */
	cancel_delayed_work_sync(&chip->worker);
	flush_work(&chip->alarm_work);

	int lost = work_pending(&chip->alarm_work) || chip->alarms_raised != chip->alarms_reported;
	say("%s: removed after %d polls, %d of %d alarms reported", chip->name,
	    atomic_load(&chip->polls), chip->alarms_reported, chip->alarms_raised);
	free(chip);
	return lost ? -1 : 0;
}

static void sleep_until(unsigned long when)
{
	unsigned long long ns = hws_jiffies_to_monotonic_ns(when);
	struct timespec ts = { .tv_sec = ns / 1000000000, .tv_nsec = ns % 1000000000 };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static int fail(const char *what)
{
	fprintf(stderr, "wq-driver: %s\n", what);
	return 1;
}

int main(int argc, char **argv)
{
	struct workqueue_struct *wq;
	struct chip *w83793, *pc87427;
	long seconds = 3;
	int opt, polls, r, rc = 0;

	while ((opt = getopt(argc, argv, "n:")) != -1) {
		char *end;

		seconds = opt == 'n' ? strtol(optarg, &end, 10) : -1;
		if (seconds < 1 || seconds > 3600 || *end)
			return fail("usage: wq-driver [-n SECONDS (1-3600)]");
	}
	setvbuf(stdout, NULL, _IOLBF, 0);	/* lines in time order, even in a pipe */
	start = jiffies;
	say("polling 2 chips on \"chip-poll\", alarms on \"events\", for %ld s", seconds);

	/* Freezeable queues are single-threaded: one worker, "chip-poll/0". */
	wq = create_freezeable_workqueue("chip-poll");
	if (!wq)
		return fail("cannot create the chip-poll workqueue (out of memory or threads)");
	w83793 = chip_probe("w83793", wq, 48000, 1500);
	pc87427 = chip_probe("pc87427", wq, 52000, -1000);
	if (!w83793 || !pc87427)
		return fail("out of memory");

	/* Halfway: what the daemon does around a suspend. */
	sleep_until(start + seconds * HZ / 2);
	r = freeze_workqueues();
	if (r < 0)	/* -EBUSY: the only failure possible from here */
		return fail("cannot freeze: a poll was still running after 20 s");
	polls = atomic_load(&w83793->polls);
	/* Accepted while frozen, but it may only run after the thaw. */
	mod_delayed_work(wq, &w83793->worker, 0);
	say("frozen; asked %s for a poll now, it has to wait", w83793->name);
	sleep_until(jiffies + HZ / 5);
	if (atomic_load(&w83793->polls) != polls)
		rc = fail("a poll ran while its queue was frozen");
	say("thawing");
	thaw_workqueues();
	flush_workqueue(wq);	/* waits for the poll asked for while frozen */
	if (atomic_load(&w83793->polls) == polls)
		rc = fail("the poll queued while frozen did not run after the thaw");

	sleep_until(start + seconds * HZ);
	r = chip_remove(w83793);
	if (chip_remove(pc87427) < 0 || r < 0)
		rc = fail("an alarm was lost or its item never released");
	destroy_workqueue(wq);
	return rc;
}
