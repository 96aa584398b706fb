/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hwsightd: the sensor daemon. This file owns the process: options, the
 * config and its reloads, detaching, the sd-event main loop (signals,
 * watchdog), systemd notification, and the order in which the pieces
 * start and stop. The work itself runs as work items; see hwsightd.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <systemd/sd-daemon.h>
#include <hwsight/version.h>

#include "cli-util.h"
#include "time-util.h"

#include "alarms.h"
#include "cameras.h"
#include "fans.h"
#include "guard.h"
#include "history.h"
#include "hotplug.h"
#include "http.h"
#include "hwsightd.h"
#include "log.h"
#include "pollers.h"
#include "sleep.h"
#include "view.h"

struct options {
	const char *config;     /* NULL: the default, which may be missing */
	const char *listen;     /* --listen, over the config's */
	bool foreground;
	bool once;
	bool test_config;
	bool restore_fans;
	bool print_ip_allow;
	bool dry_run;
	int log_level;          /* -1: the config's */
	int log_target;         /* -1: the config's */
};

struct main_loop {
	struct hwsd d;
	struct options o;
	sd_event *event;
	struct hwsd_sleep *sleep;
	struct hwsd_hotplug *hotplug;
	sd_event_source *watchdog;
	sd_event_source *status;  /* d.status said something changed */
	struct hwsd_view view;    /* what d.http serves */
	uint64_t watchdog_usec;
	uint64_t heartbeat_asked_ns;
	int ready_fd;           /* the detached parent waits on it; -1 */
	bool detached;          /* and ready: stderr is /dev/null */
	struct hwsd_http *http;   /* NULL when not listening */
	struct hwsd_http_access *access; /* what d.config's [http] files hold */
	char *http_listen;        /* where it listens */
};

enum { OPT_ONCE = 256, OPT_LOG_LEVEL, OPT_LOG_TARGET, OPT_LISTEN, OPT_VERSION, OPT_RESTORE_FANS,
       OPT_DRY_RUN, OPT_PRINT_IP_ALLOW };

static const struct hws__cli_command command = {
	.name = "hwsightd",
	.head = "Usage: hwsightd [OPTION]...\n"
		"The hwsight sensor daemon: polls the hardware monitors, raises alarms,\n"
		"takes camera snapshots and protects disks, as hwsightd.conf(5) says.\n"
		"\n",
	.options = (const struct hws__cli_option[]){
		{ "config", 'c', "FILE", "the config (default " HWSD_DEFAULT_CONFIG ")" },
		{ "foreground", 'f', NULL, "do not detach (implied under systemd)" },
		{ "once", OPT_ONCE, NULL, "poll every chip once, print the values, exit" },
		{ "test-config", 't', NULL, "check the config and exit" },
		{ "restore-fans", OPT_RESTORE_FANS, NULL, "put back the fan outputs a stopped daemon held, exit" },
		{ "dry-run", OPT_DRY_RUN, NULL, "park no disk and drive no fan: log what it would do" },
		{ "log-level", OPT_LOG_LEVEL, "LEVEL", "debug, info, notice, warning or err" },
		{ "log-target", OPT_LOG_TARGET, "T", "auto, journal or stderr" },
		{ "listen", OPT_LISTEN, "ADDR:PORT", "serve HTTP there (default 127.0.0.1:9787), or off" },
		{ "print-ip-allow", OPT_PRINT_IP_ALLOW, NULL, "print the IPAddressAllow= that listen= needs, exit" },
		{ "help", 'h', NULL, "this help" },
		{ "version", OPT_VERSION, NULL, "the version" },
		{ .name = NULL },
	},
	.column = 25,
};

static int parse_options(int argc, char **argv, struct options *o)
{
	int c;

	*o = (struct options){ .log_level = -1, .log_target = -1 };
	while ((c = hws__cli_next_option(&command, argc, argv)) != -1) {
		switch (c) {
		case 'c': o->config = optarg; break;
		case 'f': o->foreground = true; break;
		case 't': o->test_config = true; break;
		case OPT_ONCE: o->once = true; break;
		case OPT_RESTORE_FANS: o->restore_fans = true; break;
		case OPT_DRY_RUN: o->dry_run = true; break;
		case OPT_LISTEN: o->listen = optarg; break;
		case OPT_PRINT_IP_ALLOW: o->print_ip_allow = true; break;
		case OPT_LOG_LEVEL:
			o->log_level = hwsd_log_level_from_string(optarg);
			if (o->log_level < 0) {
				fprintf(stderr, "hwsightd: --log-level: \"%s\" is not debug, info, notice, warning or err\n", optarg);
				return -EINVAL;
			}
			break;
		case OPT_LOG_TARGET:
			o->log_target = hwsd_log_target_from_string(optarg);
			if (o->log_target < 0 || o->log_target == HWSD_LOG_SYSLOG) {
				fprintf(stderr, "hwsightd: --log-target: \"%s\" is not auto, journal or stderr\n", optarg);
				return -EINVAL;
			}
			break;
		case OPT_VERSION:
			printf("hwsightd %s (libhwsight %s)\n", HWS_VERSION_STRING, hws_version());
			exit(0);
		default: /* -h too */
			return hws__cli_help_or_usage_error(c, &command);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "hwsightd: unexpected argument \"%s\"\n", argv[optind]);
		return -EINVAL;
	}
	return 0;
}

/* Load the config named by -c, or the default one if it exists; --dry-run
 * makes it a dry run whatever it says. */
static int load_config(const struct options *o, struct hwsd_config **ret)
{
	const char *path = o->config;
	const char *file = path ? path : HWSD_DEFAULT_CONFIG;
	char *error = NULL;
	const char *state;
	int r;

	r = hwsd_config_load(file, ret, &error);
	if (r == -ENOENT && !path)
		r = hwsd_config_load(NULL, ret, NULL);
	if (r == -EINVAL) {
		log_error("%s", error ? error : "bad config");
		free(error);
		return r;
	}
	if (r < 0) {
		log_error("%s: %s", file, strerror(-r));
		return r;
	}
	(*ret)->dry_run |= o->dry_run;
	if (!(*ret)->state_dir) {
		/* systemd's StateDirectory= (the first of a list). */
		state = getenv("STATE_DIRECTORY");
		(*ret)->state_dir = state && *state == '/' ? strndup(state, strcspn(state, ":"))
							 : strdup("/var/lib/hwsight");
		if (!(*ret)->state_dir) {
			*ret = hwsd_config_free(*ret);
			return -ENOMEM;
		}
	}
	return 0;
}

static const char *listen_of(const struct options *o, const struct hwsd_config *c)
{
	const char *listen = o->listen ? o->listen : c->listen;

	return listen && strcmp(listen, "off") ? listen : NULL;
}

/* What @c's [http] files hold, and whether --listen takes the cameras
 * beyond this machine where the config did not; failures are logged. */
static int access_load(const struct options *o, const struct hwsd_config *c, struct hwsd_http_access **ret)
{
	char *error = NULL;
	int r;

	if (o->listen && hwsd_config_exposed_cameras(c, listen_of(o, c))) {
		log_error("--listen %s serves the cameras' frames to every machine that can reach it; "
			  "set [http] basic_auth_users in %s, listen on 127.0.0.1, or say [http] cameras_without_auth = yes",
			  o->listen, c->path ? c->path : HWSD_DEFAULT_CONFIG);
		return -EINVAL;
	}
	r = hwsd_http_access_load(c, ret, &error);
	if (r == -EINVAL)
		log_error("%s", error ? error : "[http]: bad files");
	else if (r < 0)
		log_error("[http]: %s", strerror(-r));
	free(error);
	return r;
}

/*
 * --print-ip-allow: the unit's IP allow-list for listen= (or --listen),
 * for the systemd generator. The clients of a loopback address are this
 * machine; those of any other address can be anywhere, and the password
 * and TLS of [http] are what keep them out. A config that does not load
 * prints nothing and exits 1 (after load_config() said why): the
 * generator then leaves the unit's narrowest list, and the daemon will
 * not start with that config anyway.
 */
static void print_ip_allow(const struct options *o, const struct hwsd_config *c)
{
	printf("%s\n", hwsd_listen_is_loopback(listen_of(o, c)) > 0 ? "localhost" : "any");
}

/* What a previous run left held (a crash, kill -9) goes back first. */
static int restore_fans(const char *state)
{
	int r = hwsd_fans_restore(state);

	if (r < 0)
		log_error("%s: some fan outputs could not be put back: %s", state, strerror(-r));
	else if (r > 0)
		log_notice("%s: put back %d fan output%s left held", state, r, r == 1 ? "" : "s");
	return r;
}

/* --restore-fans: for ExecStopPost=, after a daemon that died holding some. */
static int restore_fans_only(struct hwsd_config *c)
{
	int r = restore_fans(c->fan_state);

	hwsd_config_free(c);
	return r < 0 ? 1 : 0;
}

static void apply_logging(const struct main_loop *ml)
{
	int target = ml->o.log_target >= 0 ? ml->o.log_target : ml->d.config->log_target;
	int level = ml->o.log_level >= 0 ? ml->o.log_level : ml->d.config->log_level;

	/* Detached, stderr goes nowhere. */
	if (ml->detached)
		target = access("/run/systemd/journal/socket", F_OK) == 0 ? HWSD_LOG_JOURNAL
									    : HWSD_LOG_SYSLOG;
	hwsd_log_setup(target, level);
}

/* What libsensors said last: the reason when it refuses its config. */
static char sensors_said[512];

static void sensors_log(void *userdata, const char *message)
{
	(void)userdata;
	log_debug("sensors: %s", message);
	snprintf(sensors_said, sizeof(sensors_said), "%s", message);
}

static struct hws_sensors_options sensors_options(const struct hwsd_config *c)
{
	sensors_said[0] = '\0';
	return (struct hws_sensors_options){
		.config = c->sensors_config, .reader = c->reader, .log = sensors_log,
	};
}

/* Why hws_sensors_new() or _reconfigure() said @r. */
static void sensors_why(const struct hwsd_config *c, int r, char *why, size_t size)
{
	if (r == -EINVAL)
		snprintf(why, size, "sensors configuration refused: %s", sensors_said);
	else
		snprintf(why, size, "sensors: %s: %s",
			 c->sensors_config ? c->sensors_config : "/etc/sensors3.conf", strerror(-r));
}

static int sensors_open(struct hwsd *d, const struct hwsd_config *c)
{
	struct hws_sensors_options so = sensors_options(c);
	char why[768];
	int r;

	r = hws_sensors_new(&so, &d->sensors);
	if (r < 0) {
		sensors_why(c, r, why, sizeof(why));
		log_error("%s", why);
	}
	return r;
}

/* With the pollers stopped: @c's sensors config, or the one in force. */
static int sensors_reconfigure(struct hwsd *d, const struct hwsd_config *c, char *why, size_t size)
{
	struct hws_sensors_options so = sensors_options(c);
	int r = hws_sensors_reconfigure(d->sensors, &so);

	if (r < 0)
		sensors_why(c, r, why, size);
	return r;
}

/* The config in force; the jobs are stopped. */
static void config_use(struct hwsd *d, struct hwsd_config *c)
{
	d->config = c;
	d->exec.command = c->exec;
}

static void status_show(struct hwsd *d)
{
	unsigned chips = atomic_load(&d->chips_active), alarms = atomic_load(&d->counters.alarms_active);
	size_t cams = 0;

	for (size_t i = 0; i < d->n_cameras; i++)
		cams += atomic_load(&d->cameras[i].present);
	sd_notifyf(0, "STATUS=%s %u chip%s, %zu camera%s, %u alarm%s active", 
		   atomic_load(&d->frozen) ? "frozen for sleep:" : "polling", chips, chips == 1 ? "" : "s",
		   cams, cams == 1 ? "" : "s", alarms, alarms == 1 ? "" : "s");
}

/*
 * The consumers of events (events.h), in the order each hears of one:
 * the counters, then the journal, exec=, the cameras' snapshots and
 * STATUS=. They
 * run on the producer's thread, so they are all in place before any
 * producer starts, and stay until the last has stopped.
 */
static int events_setup(struct hwsd *d)
{
	int r = hwsd_events_new(&d->events);

	if (r >= 0)
		r = hwsd_events_subscribe(d->events, &hwsd_counters_subscriber, &d->counters);
	if (r >= 0)
		r = hwsd_events_subscribe(d->events, &hwsd_log_subscriber, NULL);
	if (r >= 0)
		r = hwsd_events_subscribe(d->events, &hwsd_exec_subscriber, &d->exec);
	if (r >= 0)
		r = hwsd_events_subscribe(d->events, &hwsd_cameras_subscriber, d);
	if (r >= 0)
		r = hwsd_events_subscribe(d->events, &hwsd_status_subscriber, &d->status);
	return r;
}

/* What the jobs of @c need that can fail for reasons of their own, made
 * before anything running stops. */
static int jobs_prepare(struct hwsd *d, const struct hwsd_config *c, struct hwsd_guard **guard,
			char *why, size_t size)
{
	int r = hwsd_cameras_prepare(c, why, size);

	return r < 0 ? r : hwsd_guard_new(c, d->motion_wq, d->events, &d->motion_board, guard, why, size);
}

/* The guard @g (NULL: disk protection is off) is d's now. */
static void guard_start(struct hwsd *d, struct hwsd_guard *g)
{
	if (!g)
		return;
	d->guard = g;
	hwsd_guard_start(g);
}

static void guard_stop(struct hwsd *d)
{
	if (!d->guard)
		return;
	hwsd_guard_stop(d->guard);
	d->guard = hwsd_guard_free(d->guard);
}

static void fans_drop(struct hwsd_fans *f)
{
	hwsd_fans_stop(f);
	hwsd_fans_free(f);
}

/* Fan control steps on the poll queue, behind the first polls; what
 * @prev (a reload's paused fans, or NULL) holds is kept or given back. */
static int fans_start(struct hwsd *d, struct hwsd_fans *prev)
{
	int r = hwsd_fans_new(d->config, d->sensors, d->poll_wq, d->events, &d->fan_board, &d->fans);

	if (r < 0) {
		fans_drop(prev);
		return r;
	}
	hwsd_fans_take_over(d->fans, prev);
	hwsd_fans_free(prev);
	hwsd_fans_start(d->fans);
	return 0;
}

static void fans_stop(struct hwsd *d)
{
	fans_drop(d->fans);
	d->fans = NULL;
}

static void jobs_stop(struct hwsd *d)
{
	fans_stop(d);
	hwsd_pollers_stop(d);
	guard_stop(d);
	hwsd_cameras_stop(d);
}

/* The jobs of d->config, in the order in which one may trigger the next;
 * all of them or none. @guard is the one jobs_prepare() made; @prev the
 * fans a reload paused (NULL at the start), kept or given back. */
static int jobs_start(struct hwsd *d, struct hwsd_guard *guard, struct hwsd_fans *prev)
{
	int r = hwsd_cameras_start(d);

	if (r < 0) {
		hwsd_guard_free(guard);
		hwsd_cameras_stop(d);
		fans_drop(prev);
		return r;
	}
	guard_start(d, guard);
	r = hwsd_pollers_start(d);
	if (r >= 0)
		r = fans_start(d, prev);
	else
		fans_drop(prev);
	if (r < 0)
		jobs_stop(d);
	return r;
}

/* The HTTP side, where --listen or the config says; a failure is logged.
 * A reload that leaves the address and the certificate alone leaves the
 * server and its clients alone, and only swaps the users. Return: 0 or
 * -errno. */
static int http_start(struct main_loop *ml)
{
	const char *listen = listen_of(&ml->o, ml->d.config);
	int r = 0;

	if (ml->http && listen && ml->http_listen && !strcmp(listen, ml->http_listen) &&
	    hwsd_http_access_same_tls(hwsd_http_access(ml->http), ml->access)) {
		/* New passwords apply from the next request; the cache of
		 * checked ones went with the old users. */
		hwsd_http_set_access(ml->http, ml->access);
		return 0;
	}
	ml->http = hwsd_http_stop(ml->http);
	free(ml->http_listen);
	ml->http_listen = NULL;
	if (listen && (r = hwsd_http_start(&ml->view, listen, ml->access, &ml->http)) == 0)
		ml->http_listen = strdup(listen);
	return r;
}

/* Sensor history in STATE/history; without it the daemon runs on. It is
 * made at the start only: the HTTP threads read d->history unlocked. */
static void history_start(struct hwsd *d, bool reloading)
{
	char *dir;
	int r;

	if (asprintf(&dir, "%s/history", d->config->state_dir) < 0)
		return;
	if (reloading && (!d->history || strcmp(dir, hwsd_history_dir(d->history))))
		log_notice("history: %s is used after a restart", dir);
	if (reloading && d->history)
		hwsd_history_set_flush_interval(d->history, d->config->history_flush_s);
	else if (!reloading) {
		r = hwsd_history_new(dir, d->config->history_flush_s, &d->history);
		if (r < 0)
			log_warning("history: cannot use %s: %s; no sensor history is kept",
				    dir, strerror(-r));
	}
	free(dir);
}

static void refuse(const char *why)
{
	log_error("reload refused: %s; the running configuration stays in force", why);
}

/*
 * A reload is a transaction: what the new config needs is made while the
 * old one runs, and nothing is stopped until that worked. libsensors
 * allows one context, so the pollers stop while it reads the new config;
 * if it refuses, they start again on the old one. Should the new jobs
 * still fail to start (out of memory, say), the old config is started
 * again, and if that fails too the daemon stops with an error so that
 * systemd restarts it: READY=1 is never sent without the pollers.
 */
static void reload(struct main_loop *ml)
{
	struct hwsd *d = &ml->d;
	struct hwsd_config *c = NULL, *old = d->config;
	struct hwsd_guard *guard = NULL;
	struct hwsd_http_access *access = NULL;
	struct hwsd_fans *paused;
	char why[768];
	int r;

	log_info("reloading %s", ml->o.config ? ml->o.config : HWSD_DEFAULT_CONFIG);
	if (load_config(&ml->o, &c) < 0 || access_load(&ml->o, c, &access) < 0) {
		log_error("reload refused; the running configuration stays in force");
		hwsd_config_free(c);
		return;
	}
	if (jobs_prepare(d, c, &guard, why, sizeof(why)) < 0) {
		refuse(why);
		hwsd_http_access_unref(access);
		hwsd_config_free(c);
		return;
	}
	sd_notify(0, "RELOADING=1\nSTATUS=reloading");
	hwsd_live_set_pause(&d->live, true);
	/* Paused, not stopped: what the new config keeps stays held. */
	hwsd_fans_pause(d->fans);
	hwsd_pollers_stop(d);
	/* A reload may change the chips' names or sensors, and a restart
	 * may follow: what was polled is written first. */
	hwsd_history_flush(d->history);
	r = sensors_reconfigure(d, c, why, sizeof(why));
	if (r < 0) {
		refuse(why);
		hwsd_guard_free(guard);
		hwsd_http_access_unref(access);
		hwsd_config_free(c);
		r = hwsd_pollers_start(d);
		if (r >= 0)
			hwsd_fans_start(d->fans);
		else
			fans_stop(d);
		goto done;
	}
	guard_stop(d);
	hwsd_cameras_stop(d);
	/* The old config stays until the end: the paused fans point in it. */
	paused = d->fans;
	d->fans = NULL;
	config_use(d, c);
	apply_logging(ml);
	r = jobs_start(d, guard, paused);
	if (r >= 0) {
		hwsd_http_access_unref(ml->access);
		ml->access = access;
	} else {
		hwsd_http_access_unref(access);
		snprintf(why, sizeof(why), "its jobs cannot start: %s", strerror(-r));
		refuse(why);
		config_use(d, old);
		old = c;
		apply_logging(ml);
		r = sensors_reconfigure(d, d->config, why, sizeof(why));
		if (r >= 0)
			r = jobs_prepare(d, d->config, &guard, why, sizeof(why));
		if (r >= 0 && (r = jobs_start(d, guard, NULL)) < 0)
			snprintf(why, sizeof(why), "%s", strerror(-r));
		if (r < 0)
			log_error("the running configuration cannot start again: %s", why);
	}
	hwsd_config_free(old);
	http_start(ml);
	history_start(d, true);
done:
	hwsd_live_set_pause(&d->live, false);
	if (r < 0) {
		log_error("neither the new nor the running configuration can start: stopping");
		sd_notify(0, "STOPPING=1\nSTATUS=stopping: no configuration can start");
		sd_event_exit(ml->event, 1);
		return;
	}
	sd_notify(0, "READY=1");
	status_show(d);
}

static int on_signal(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
	struct main_loop *ml = userdata;

	(void)s;
	switch (si->ssi_signo) {
	case SIGHUP:
		reload(ml);
		break;
	case SIGCHLD:
		hwsd_exec_reap(&ml->d.exec);
		break;
	default:
		log_info("%s: stopping", strsignal((int)si->ssi_signo));
		sd_notify(0, "STOPPING=1\nSTATUS=stopping");
		sd_event_exit(ml->event, 0);
		break;
	}
	return 0;
}

/*
 * The watchdog is fed only while the poll queue answers: a poller stuck
 * in a read (a wedged SMBus) should get the service restarted, which
 * feeding from the main loop alone would hide. A frozen queue is asleep
 * on purpose.
 */
static int on_watchdog(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct main_loop *ml = userdata;
	struct hwsd *d = &ml->d;
	uint64_t beat = atomic_load(&d->heartbeat_ns);

	if (atomic_load(&d->frozen) || !d->sensors || beat >= ml->heartbeat_asked_ns)
		sd_notify(0, "WATCHDOG=1");
	else
		log_warning("the poll queue has not answered for %llu ms",
			    (unsigned long long)(hws__now_ns() - ml->heartbeat_asked_ns) / 1000000);
	if (!d->sensors || beat >= ml->heartbeat_asked_ns) {
		ml->heartbeat_asked_ns = hws__now_ns();
		if (d->sensors)
			hwsd_pollers_heartbeat(d);
	}
	sd_event_source_set_time(s, usec + ml->watchdog_usec / 3);
	return 0;
}

static int on_status(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct main_loop *ml = userdata;

	(void)s, (void)fd, (void)revents;
	if (hwsd_status_take(&ml->d.status))
		status_show(&ml->d);
	return 0;
}

/*
 * Before the system sleeps the freezeable queues are frozen (running
 * items finish, no new one starts), so that no poll runs against a chip
 * being suspended; after, they are thawed and every chip is polled at
 * once. Called by sleep.c, and at the end should the daemon be stopped
 * while frozen.
 */
static void sleep_prepare(void *userdata, bool start)
{
	struct hwsd *d = userdata;
	int r;

	if (start) {
		if (atomic_load(&d->frozen))
			return;
		log_info("the system is going to sleep: freezing the pollers");
		r = freeze_workqueues();
		if (r < 0) {
			log_warning("freezing the pollers failed (%s); they run on", strerror(-r));
			return;
		}
		atomic_store(&d->frozen, true);
		/* The pollers are still: a sleep that never ends loses nothing. */
		hwsd_history_flush(d->history);
		hwsd_status_changed(&d->status);
		return;
	}
	if (!atomic_load(&d->frozen))
		return;
	/* Queue every poller now, then the fans behind them, and let them
	 * all run. */
	hwsd_pollers_kick(d);
	hwsd_fans_resumed(d->fans);
	thaw_workqueues();
	atomic_store(&d->frozen, false);
	log_info("the system woke up: polling every chip now");
	hwsd_status_changed(&d->status);
}

static void hotplug_hwmon(void *userdata)
{
	hwsd_pollers_rescan(userdata);
}

static void hotplug_video(void *userdata)
{
	hwsd_cameras_hotplug(userdata);
}

static void hotplug_disk(void *userdata)
{
	struct hwsd *d = userdata;

	if (d->guard)
		hwsd_guard_disks_changed(d->guard);
}

static const struct hwsd_hotplug_ops hotplug_ops = {
	.hwmon = hotplug_hwmon, .video = hotplug_video, .disk = hotplug_disk,
};

static int loop_setup(struct main_loop *ml)
{
	static const int signals[] = { SIGTERM, SIGINT, SIGHUP, SIGCHLD };
	uint64_t now;
	int r;

	r = sd_event_new(&ml->event);
	for (size_t i = 0; r >= 0 && i < sizeof(signals) / sizeof(signals[0]); i++)
		r = sd_event_add_signal(ml->event, NULL, signals[i], on_signal, ml);
	if (r < 0)
		return r;
	r = sd_event_add_io(ml->event, &ml->status, ml->d.status.fd, EPOLLIN, on_status, ml);
	if (r < 0)
		return r;
	r = hwsd_sleep_new(ml->event, sleep_prepare, &ml->d, &ml->sleep);
	if (r < 0)
		return r;
	r = hwsd_hotplug_new(ml->event, &hotplug_ops, &ml->d, &ml->hotplug);
	if (r < 0) {
		log_warning("no hotplug events (%s): chips and cameras that come later need a reload",
			    strerror(-r));
		ml->hotplug = NULL;
	}
	if (sd_watchdog_enabled(0, &ml->watchdog_usec) > 0) {
		sd_event_now(ml->event, CLOCK_MONOTONIC, &now);
		ml->heartbeat_asked_ns = 0;
		r = sd_event_add_time(ml->event, &ml->watchdog, CLOCK_MONOTONIC,
				      now + ml->watchdog_usec / 3, 0, on_watchdog, ml);
		if (r < 0)
			return r;
		log_debug("watchdog: every %llu ms", (unsigned long long)ml->watchdog_usec / 1000);
	}
	return 0;
}

/*
 * Detach as a classic daemon: the parent returns only once the child is
 * ready (exit 0) or has failed (exit 1), so that a script starting it
 * learns whether it runs.
 */
static int detach(struct main_loop *ml)
{
	int fds[2];
	pid_t pid;
	char c;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid > 0) {
		close(fds[1]);
		exit(read(fds[0], &c, 1) == 1 && c == 0 ? 0 : 1);
	}
	close(fds[0]);
	ml->ready_fd = fds[1];
	if (setsid() < 0 || chdir("/") < 0)
		return -errno;
	return 0;
}

static void ready(struct main_loop *ml)
{
	int null;

	sd_notify(0, "READY=1");
	status_show(&ml->d);
	log_info("ready: %u chip%s, %zu camera%s", atomic_load(&ml->d.chips_active),
		 atomic_load(&ml->d.chips_active) == 1 ? "" : "s", ml->d.n_cameras,
		 ml->d.n_cameras == 1 ? "" : "s");
	if (ml->ready_fd < 0)
		return;
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null >= 0) {
		dup2(null, STDIN_FILENO);
		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
		close(null);
	}
	(void)!write(ml->ready_fd, "", 1);
	close(ml->ready_fd);
	ml->ready_fd = -1;
	/* Until now errors went to the terminal that started us. */
	ml->detached = true;
	apply_logging(ml);
}

static int queues_create(struct hwsd *d)
{
	d->poll_wq = create_freezeable_workqueue("hwsight-poll");
	d->motion_wq = create_freezeable_workqueue("hwsight-motion");
	return d->poll_wq && d->motion_wq ? 0 : -ENOMEM;
}

static void teardown(struct main_loop *ml)
{
	struct hwsd *d = &ml->d;

	if (atomic_load(&d->frozen))
		sleep_prepare(d, false);
	ml->hotplug = hwsd_hotplug_free(ml->hotplug);
	ml->sleep = hwsd_sleep_free(ml->sleep);
	ml->http = hwsd_http_stop(ml->http);
	free(ml->http_listen);
	ml->access = hwsd_http_access_unref(ml->access);
	jobs_stop(d);
	/* A clean stop loses no poll. */
	hwsd_history_flush(d->history);
	if (d->poll_wq)
		destroy_workqueue(d->poll_wq);
	if (d->motion_wq)
		destroy_workqueue(d->motion_wq);
	hwsd_exec_reap(&d->exec);
	sd_event_source_unref(ml->watchdog);
	sd_event_source_unref(ml->status);
	sd_event_unref(ml->event);
	hws_sensors_free(d->sensors);
	hwsd_alarms_free(d->alarms);
	d->events = hwsd_events_free(d->events);
	hwsd_status_done(&d->status);
	hwsd_config_free(d->config);
	hwsd_readings_done(&d->readings);
	hwsd_fan_board_done(&d->fan_board);
	hwsd_motion_board_done(&d->motion_board);
	d->history = hwsd_history_free(d->history);
	hwsd_live_set_done(&d->live);
	pthread_mutex_destroy(&d->pollers_lock);
}

int main(int argc, char **argv)
{
	struct main_loop ml = { .ready_fd = -1, .d.status.fd = -1 };
	struct hwsd *d = &ml.d;
	struct hwsd_guard *guard = NULL;
	char why[768];
	sigset_t mask;
	int r;

	if (parse_options(argc, argv, &ml.o) < 0)
		return 1;
	hwsd_log_setup(ml.o.log_target >= 0 ? ml.o.log_target : HWSD_LOG_AUTO,
		       ml.o.log_level >= 0 ? ml.o.log_level : LOG_INFO);
	if (load_config(&ml.o, &d->config) < 0) {
		if (ml.o.print_ip_allow)
			return 1;
		/* A broken config must not keep fans from being put back. */
		if (ml.o.restore_fans && hwsd_config_load(NULL, &d->config, NULL) >= 0) {
			log_warning("restoring from %s", d->config->fan_state);
			return restore_fans_only(d->config);
		}
		return 1;
	}
	if (ml.o.restore_fans)
		return restore_fans_only(d->config);
	if (ml.o.print_ip_allow) {
		print_ip_allow(&ml.o, d->config);
		hwsd_config_free(d->config);
		return 0;
	}
	if (access_load(&ml.o, d->config, &ml.access) < 0) {
		hwsd_config_free(d->config);
		return 1;
	}
	if (ml.o.test_config) {
		printf("%s: ok\n", d->config->path ? d->config->path : "no config file, the defaults");
		hwsd_http_access_unref(ml.access);
		hwsd_config_free(d->config);
		return 0;
	}
	pthread_mutex_init(&d->pollers_lock, NULL);
	hwsd_readings_init(&d->readings);
	hwsd_fan_board_init(&d->fan_board);
	hwsd_motion_board_init(&d->motion_board);
	hwsd_live_set_init(&d->live);
	hwsd_pollers_init(d);
	if (!ml.o.foreground && !ml.o.once && !getenv("NOTIFY_SOCKET") && !getenv("INVOCATION_ID")) {
		r = detach(&ml);
		if (r < 0) {
			log_error("cannot detach: %s", strerror(-r));
			return 1;
		}
	}
	apply_logging(&ml);
	config_use(d, d->config);
	if (hwsd_status_init(&d->status) < 0 || events_setup(d) < 0 ||
	    hwsd_alarms_new(d->events, &d->alarms) < 0 || sensors_open(d, d->config) < 0)
		goto fail;
	if (ml.o.once) {
		r = hwsd_pollers_once(d, stdout);
		if (r < 0)
			log_error("writing the values failed: %s", strerror(-r));
		teardown(&ml);
		return r < 0 ? 1 : 0;
	}
	/* Every thread made from here on inherits the mask, so the signals
	 * reach the main loop alone. */
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGCHLD);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);
	history_start(d, false);
	if (!d->config->dry_run)
		restore_fans(d->config->fan_state);
	else if (access(d->config->fan_state, F_OK) == 0)
		log_notice("%s: dry run: the fan outputs it lists are left as they are "
			   "(hwsightd --restore-fans puts them back)", d->config->fan_state);
	ml.view = (struct hwsd_view){
		.readings = &d->readings, .live = &d->live, .history = d->history,
		.counters = &d->counters, .motion = &d->motion_board,
		.fans = &d->fan_board,
	};
	r = queues_create(d);
	if (r >= 0)
		r = loop_setup(&ml);
	snprintf(why, sizeof(why), "%s", strerror(-r));
	if (r >= 0)
		r = jobs_prepare(d, d->config, &guard, why, sizeof(why));
	if (r >= 0) {
		r = jobs_start(d, guard, NULL);
		snprintf(why, sizeof(why), "%s", strerror(-r));
	}
	if (r < 0) {
		log_error("cannot start: %s", why);
		goto fail;
	}
	/* Told to serve HTTP and unable to: fail, so that systemd and the
	 * detaching parent say so, rather than run on with only a log line. */
	if (http_start(&ml) < 0)
		goto fail;
	ready(&ml);
	/* The loop's own failure, or a reload that left nothing to run. */
	r = sd_event_loop(ml.event);
	if (r < 0)
		log_error("main loop: %s", strerror(-r));
	teardown(&ml);
	log_info("stopped");
	return r != 0 ? 1 : 0;
fail:
	teardown(&ml);
	return 1;
}
